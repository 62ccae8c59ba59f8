import zlib from 'node:zlib';
import { Parser } from 'htmlparser2';

/**
 * Sitemaps per sitemaps.org: a `<urlset>` lists pages, a `<sitemapindex>` lists further sitemaps.
 * Gzipped files (`sitemap.xml.gz`) and plain-text sitemaps (one URL per line) are read as well.
 */

export interface ParsedSitemap {
  kind: 'urlset' | 'index';
  /** `<loc>` values in document order: page URLs for a urlset, sitemap URLs for an index. */
  urls: string[];
}

/** The protocol caps one sitemap at 50,000 URLs; more is a broken or hostile file. */
export const MAX_SITEMAP_URLS = 50_000;

/** Gunzips when the body carries the gzip magic number; the output cap guards against gzip bombs. */
export function decodeSitemapBody(body: Buffer, maxBytes: number): string {
  if (body.length >= 2 && body[0] === 0x1f && body[1] === 0x8b) {
    return zlib.gunzipSync(body, { maxOutputLength: maxBytes }).toString('utf8');
  }
  return body.toString('utf8');
}

export function parseSitemap(text: string): ParsedSitemap {
  const trimmed = text.replace(/^\uFEFF/, '').trimStart();
  if (!trimmed.startsWith('<')) {
    const urls = trimmed
      .split(/\r?\n/)
      .map((line) => line.trim())
      .filter((line) => /^https?:\/\//i.test(line))
      .slice(0, MAX_SITEMAP_URLS);
    return { kind: 'urlset', urls };
  }
  let kind: ParsedSitemap['kind'] = 'urlset';
  const urls: string[] = [];
  const stack: string[] = [];
  let loc: string | null = null;
  const parser = new Parser(
    {
      onopentag(name) {
        // Namespace prefixes vary (`<sm:loc>`); only the local name matters.
        const local = name.replace(/^.*:/, '').toLowerCase();
        if (stack.length === 0 && local === 'sitemapindex') kind = 'index';
        // Only <loc> directly inside <url>/<sitemap>: image:loc and video:loc sit deeper.
        const parent = stack[stack.length - 1];
        if (local === 'loc' && (parent === 'url' || parent === 'sitemap')) loc = '';
        stack.push(local);
      },
      ontext(data) {
        if (loc !== null) loc += data;
      },
      onclosetag(name) {
        const local = name.replace(/^.*:/, '').toLowerCase();
        if (local === 'loc' && loc !== null) {
          const value = loc.trim();
          if (value && urls.length < MAX_SITEMAP_URLS) urls.push(value);
          loc = null;
        }
        stack.pop();
      },
    },
    { xmlMode: true, decodeEntities: true },
  );
  parser.end(trimmed);
  return { kind, urls };
}
