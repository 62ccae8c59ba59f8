import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { parseSitemap, readSitemap } from '../../src/crawler/sitemap.ts';

describe('sitemap', () => {
  it('reads a urlset, ignoring image:loc', () => {
    const xml = `<?xml version="1.0" encoding="UTF-8"?>
      <urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">
        <url><loc> https://site.test/a?x=1&amp;y=2 </loc><lastmod>2024-01-01</lastmod>
          <image:image><image:loc>https://site.test/a.jpg</image:loc></image:image></url>
        <url><loc>https://site.test/b</loc></url>
      </urlset>`;
    expect(parseSitemap(xml)).toEqual({
      kind: 'urlset',
      urls: ['https://site.test/a?x=1&y=2', 'https://site.test/b'],
    });
  });

  it('reads a sitemap index', () => {
    const xml = `<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
      <sitemap><loc>https://site.test/s1.xml</loc></sitemap><sitemap><loc>https://site.test/s2.xml.gz</loc></sitemap>
    </sitemapindex>`;
    expect(parseSitemap(xml)).toEqual({
      kind: 'index',
      urls: ['https://site.test/s1.xml', 'https://site.test/s2.xml.gz'],
    });
  });

  it('reads gzipped and plain-text sitemaps, and caps gzip bombs', async () => {
    const gz = zlib.gzipSync('<urlset><url><loc>https://site.test/z</loc></url></urlset>');
    expect((await readSitemap(gz, { maxBytes: 1024 })).urls).toEqual(['https://site.test/z']);
    expect(parseSitemap('https://site.test/1\nnot a url\nhttps://site.test/2\n').urls).toEqual([
      'https://site.test/1',
      'https://site.test/2',
    ]);
    const bomb = zlib.gzipSync(Buffer.alloc(10 * 1024 * 1024, 0x20));
    await expect(readSitemap(bomb, { maxBytes: 1024 * 1024 })).rejects.toThrow(/larger than/);
    const plain = Buffer.from('https://site.test/1\r\nhttps://site.test/2\nhttps://site.test/3');
    expect((await readSitemap(plain, { maxBytes: 1024 })).urls).toHaveLength(3);
    expect((await readSitemap(plain, { maxBytes: 1024, maxUrls: 2 })).urls).toEqual([
      'https://site.test/1',
      'https://site.test/2',
    ]);
  });
});
