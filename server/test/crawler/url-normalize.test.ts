import { describe, expect, it } from 'vitest';
import { hostKey, normalizeUrl, siteName } from '../../src/crawler/url-normalize.ts';

describe('normalizeUrl', () => {
  it('makes equivalent spellings one key', () => {
    const variants = [
      'HTTP://Example.COM:80/a/./b/../c?x=1#frag',
      'http://example.com/a/c?x=1',
      'http://example.com./a/c?x=1&utm_source=news',
    ];
    expect(new Set(variants.map((v) => normalizeUrl(v))).size).toBe(1);
    expect(normalizeUrl('http://example.com')).toBe('http://example.com/');
  });

  it('resolves relative links and keeps meaningful query order', () => {
    expect(normalizeUrl('../x?b=2&a=1', 'https://example.com/dir/page')).toBe(
      'https://example.com/x?b=2&a=1',
    );
    expect(normalizeUrl('?fbclid=abc', 'https://example.com/p')).toBe('https://example.com/p');
  });

  it('drops tracking parameters and leaves the rest of the query as written', () => {
    const u = (query: string) => normalizeUrl(`https://example.com/p${query}`);
    expect(u('?q=%E9&utm_source=z')).toBe('https://example.com/p?q=%E9');
    expect(u('?flag&utm_source=z')).toBe('https://example.com/p?flag');
    expect(u('?q=a%20b&utm_source=z')).toBe(u('?q=a%20b'));
    expect(u('?utm_medium=x&b=2&a=1&gclid=y')).toBe('https://example.com/p?b=2&a=1');
    expect(u('?')).toBe(u(''));
  });

  it('rejects what cannot be crawled', () => {
    for (const bad of [
      'mailto:a@b.c',
      'javascript:void(0)',
      'data:image/png;base64,xx',
      'ftp://x/',
      'http://u:p@x/',
      'http://[',
    ])
      expect(normalizeUrl(bad, 'https://example.com/')).toBeNull();
  });

  it('keys hosts with their port and merges www twins', () => {
    expect(hostKey('http://a.test:8080/x')).toBe('a.test:8080');
    expect(hostKey('https://a.test/x')).toBe('a.test');
    expect(siteName('WWW.Example.com')).toBe('example.com');
  });
});
