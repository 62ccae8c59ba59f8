import { describe, expect, it } from 'vitest';
import { ALLOW_ALL, DISALLOW_ALL, parseRobots, robotsFromStatus } from '../../src/crawler/robots.ts';

const TOKEN = 'OSINTPlatformBot';
const at = (path: string) => `https://site.test${path}`;

describe('robots.txt', () => {
  it('uses the group naming our product token, not the * group', () => {
    const policy = parseRobots(
      ['User-agent: *', 'Disallow: /', '', 'User-agent: osintplatformbot/1.0', 'Disallow: /private'].join(
        '\n',
      ),
      TOKEN,
    );
    expect(policy.isAllowed(at('/public'))).toBe(true);
    expect(policy.isAllowed(at('/private/x'))).toBe(false);
  });

  it('falls back to * and merges every matching group', () => {
    const policy = parseRobots(
      [
        'User-agent: googlebot',
        'Disallow: /g',
        'User-agent: *',
        'Disallow: /a',
        '',
        'User-agent: *',
        'Disallow: /b',
      ].join('\n'),
      TOKEN,
    );
    expect(policy.isAllowed(at('/a/1'))).toBe(false);
    expect(policy.isAllowed(at('/b'))).toBe(false);
    expect(policy.isAllowed(at('/g'))).toBe(true);
  });

  it('groups consecutive user-agent lines', () => {
    const policy = parseRobots(
      ['User-agent: other', 'User-agent: OSINTPlatformBot', 'Disallow: /x'].join('\n'),
      TOKEN,
    );
    expect(policy.isAllowed(at('/x'))).toBe(false);
  });

  it('lets the longest match win, and Allow win a tie', () => {
    const policy = parseRobots(
      [
        'User-agent: *',
        'Disallow: /shop',
        'Allow: /shop/public',
        'Disallow: /shop/public/secret',
        'Allow: /tie',
        'Disallow: /tie',
      ].join('\n'),
      TOKEN,
    );
    expect(policy.isAllowed(at('/shop/cart'))).toBe(false);
    expect(policy.isAllowed(at('/shop/public/item'))).toBe(true);
    expect(policy.isAllowed(at('/shop/public/secret/1'))).toBe(false);
    expect(policy.isAllowed(at('/tie'))).toBe(true);
  });

  it('supports * and $ patterns, on path and query', () => {
    const policy = parseRobots(
      [
        'User-agent: *',
        'Disallow: /*.pdf$',
        'Disallow: /*?session=',
        'Disallow: /a*b*c',
        'Allow: /a*b*c/ok$',
      ].join('\n'),
      TOKEN,
    );
    expect(policy.isAllowed(at('/docs/file.pdf'))).toBe(false);
    expect(policy.isAllowed(at('/docs/file.pdf?x=1'))).toBe(true);
    expect(policy.isAllowed(at('/list?session=42'))).toBe(false);
    expect(policy.isAllowed(at('/axxbyyc/z'))).toBe(false);
    expect(policy.isAllowed(at('/axxbyyc/ok'))).toBe(true);
    expect(policy.isAllowed(at('/axxbyy'))).toBe(true);
  });

  it('ignores an empty Disallow, comments and rules outside groups; robots.txt is always allowed', () => {
    const policy = parseRobots(
      ['Disallow: /orphan', '# comment', 'User-agent: * # all', 'Disallow:', 'Disallow: / # everything'].join(
        '\n',
      ),
      TOKEN,
    );
    expect(policy.isAllowed(at('/anything'))).toBe(false);
    expect(policy.isAllowed(at('/robots.txt'))).toBe(true);
    expect(parseRobots('User-agent: *\nDisallow:\n', TOKEN).isAllowed(at('/x'))).toBe(true);
  });

  it('keeps our rules after ten thousand rules for another robot', () => {
    const others = Array.from({ length: 10_000 }, (_, i) => `Disallow: /other-${i}`);
    const policy = parseRobots(
      ['User-agent: SomeOtherBot', ...others, '', 'User-agent: *', 'Disallow: /private/'].join('\n'),
      TOKEN,
    );
    expect(policy.isAllowed(at('/private/x'))).toBe(false);
    expect(policy.isAllowed(at('/other-1'))).toBe(true);
  });

  it('compares percent-encoded and non-ASCII paths octet by octet', () => {
    const policy = parseRobots('User-agent: *\nDisallow: /café\nDisallow: /a%2fb', TOKEN);
    expect(policy.isAllowed(at('/caf%C3%A9/menu'))).toBe(false);
    expect(policy.isAllowed(at('/a%2Fb'))).toBe(false);
    expect(policy.isAllowed(at('/a/b'))).toBe(true);
  });

  it('reads an escaped unreserved character as the character, in rules and in paths', () => {
    const policy = parseRobots('User-agent: *\nDisallow: /%7Ejane/\nDisallow: /private-files', TOKEN);
    expect(policy.isAllowed(at('/~jane/photo.jpg'))).toBe(false);
    expect(policy.isAllowed(at('/private%2Dfiles/a.jpg'))).toBe(false);
    expect(policy.isAllowed(at('/%70rivate-files/a.jpg'))).toBe(false);
    expect(policy.isAllowed(at('/~john/photo.jpg'))).toBe(true);
  });

  it('reads Crawl-delay of the selected group and every Sitemap line', () => {
    const policy = parseRobots(
      [
        'Sitemap: https://site.test/sitemap-index.xml',
        'User-agent: *',
        'Crawl-delay: 9',
        'User-agent: OSINTPlatformBot',
        'Crawl-delay: 2.5',
        'Sitemap: /relative.xml',
      ].join('\n'),
      TOKEN,
      'https://site.test/robots.txt',
    );
    expect(policy.crawlDelayMs).toBe(2500);
    expect(policy.sitemaps).toEqual([
      'https://site.test/sitemap-index.xml',
      'https://site.test/relative.xml',
    ]);
  });

  it('stays fast on hostile wildcard patterns', () => {
    const rules = Array.from({ length: 200 }, () => `Disallow: /${'*a'.repeat(40)}b`).join('\n');
    const policy = parseRobots(`User-agent: *\n${rules}`, TOKEN);
    const started = performance.now();
    expect(policy.isAllowed(at(`/${'a'.repeat(2000)}`))).toBe(true);
    expect(performance.now() - started).toBeLessThan(2000);
  });

  it('maps fetch outcomes per RFC 9309', () => {
    expect(robotsFromStatus(404, '', TOKEN)).toBe(ALLOW_ALL);
    expect(robotsFromStatus(403, '', TOKEN)).toBe(ALLOW_ALL);
    expect(robotsFromStatus(503, '', TOKEN)).toBe(DISALLOW_ALL);
    expect(robotsFromStatus(undefined, '', TOKEN)).toBe(DISALLOW_ALL);
    expect(DISALLOW_ALL.isAllowed(at('/x'))).toBe(false);
    expect(robotsFromStatus(200, 'User-agent: *\nDisallow: /x', TOKEN).isAllowed(at('/x'))).toBe(false);
  });
});
