import { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import zlib from 'node:zlib';
import { Parser } from 'htmlparser2';

/**
 * Sitemaps per sitemaps.org: a `<urlset>` lists pages, a `<sitemapindex>` lists further sitemaps.
 * Gzipped files (`sitemap.xml.gz`) and plain-text sitemaps (one URL per line) are read as well.
 *
 * A sitemap comes from a site we do not control and is read in the process that answers HTTP: it is
 * gunzipped as a stream (on the thread pool), parsed a slice at a time with a pause for the event loop
 * after each, capped in size, and read no further once it has given as many URLs as will be used.
 */

export interface ParsedSitemap {
  kind: 'urlset' | 'index';
  /** `<loc>` values in document order: page URLs for a urlset, sitemap URLs for an index. */
  urls: string[];
}

/** The protocol caps one sitemap at 50,000 URLs; more is a broken or hostile file. */
export const MAX_SITEMAP_URLS = 50_000;
/** Text parsed between two pauses for the event loop: about a millisecond of parsing. */
const SLICE_CHARS = 64 * 1024;

export class SitemapTooLargeError extends Error {
  constructor(maxBytes: number) {
    super(`sitemap larger than ${maxBytes} bytes once decompressed`);
    this.name = 'SitemapTooLargeError';
  }
}

/** An incremental sitemap parser: text goes in a piece at a time, `done` says when it wants no more. */
class SitemapParser {
  kind: ParsedSitemap['kind'] = 'urlset';
  readonly urls: string[] = [];
  /** Null until the first non-blank character says whether this is XML or plain text. */
  private mode: 'xml' | 'text' | null = null;
  private xml: Parser | undefined;
  private line = '';
  private readonly stack: string[] = [];
  private loc: string | null = null;

  constructor(private readonly maxUrls: number) {}

  get done(): boolean {
    return this.urls.length >= this.maxUrls;
  }

  write(text: string): void {
    if (this.done) return;
    if (this.mode === null) {
      const start = text.replace(/^\uFEFF/, '').trimStart();
      if (!start) return;
      this.mode = start.startsWith('<') ? 'xml' : 'text';
      text = start;
      if (this.mode === 'xml') this.xml = this.newXmlParser();
    }
    if (this.mode === 'xml') this.xml!.write(text);
    else this.writeText(text);
  }

  end(): ParsedSitemap {
    if (this.mode === 'xml' && !this.done) this.xml!.end();
    if (this.mode === 'text') this.takeLine(this.line);
    return { kind: this.kind, urls: this.urls };
  }

  private writeText(text: string): void {
    const lines = (this.line + text).split(/\r?\n/);
    this.line = lines.pop()!;
    for (const line of lines) if (!this.done) this.takeLine(line);
  }

  private takeLine(line: string): void {
    const value = line.trim();
    if (/^https?:\/\//i.test(value) && !this.done) this.urls.push(value);
  }

  private newXmlParser(): Parser {
    return new Parser(
      {
        onopentag: (name) => {
          // Namespace prefixes vary (`<sm:loc>`); only the local name matters.
          const local = name.replace(/^.*:/, '').toLowerCase();
          if (this.stack.length === 0 && local === 'sitemapindex') this.kind = 'index';
          // Only <loc> directly inside <url>/<sitemap>: image:loc and video:loc sit deeper.
          const parent = this.stack[this.stack.length - 1];
          if (local === 'loc' && (parent === 'url' || parent === 'sitemap')) this.loc = '';
          // A hostile file can nest without end; only the top few levels matter.
          if (this.stack.length < 64) this.stack.push(local);
          else this.stack.push('');
        },
        ontext: (data) => {
          if (this.loc !== null && this.loc.length < 4096) this.loc += data;
        },
        onclosetag: (name) => {
          const local = name.replace(/^.*:/, '').toLowerCase();
          if (local === 'loc' && this.loc !== null) {
            const value = this.loc.trim();
            if (value && !this.done) this.urls.push(value);
            this.loc = null;
          }
          this.stack.pop();
        },
      },
      { xmlMode: true, decodeEntities: true },
    );
  }
}

/** Parses a whole sitemap held in memory (small ones: tests and tools; the crawler uses readSitemap). */
export function parseSitemap(text: string, maxUrls = MAX_SITEMAP_URLS): ParsedSitemap {
  const parser = new SitemapParser(maxUrls);
  parser.write(text);
  return parser.end();
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

export interface ReadSitemapOptions {
  /** Largest decompressed size read; past it the sitemap is refused (gzip bombs). */
  maxBytes: number;
  /** Reading stops once this many URLs are found (at most MAX_SITEMAP_URLS). */
  maxUrls?: number;
}

/**
 * Reads a fetched sitemap body, gunzipping it when it carries the gzip magic number, without holding the
 * event loop for more than a slice of parsing at a time. Throws SitemapTooLargeError past maxBytes.
 */
export async function readSitemap(body: Buffer, options: ReadSitemapOptions): Promise<ParsedSitemap> {
  const parser = new SitemapParser(Math.min(options.maxUrls ?? MAX_SITEMAP_URLS, MAX_SITEMAP_URLS));
  const gzipped = body.length >= 2 && body[0] === 0x1f && body[1] === 0x8b;
  const source: Readable = gzipped
    ? Readable.from([body]).pipe(zlib.createGunzip({ chunkSize: SLICE_CHARS }))
    : Readable.from(sliced(body, SLICE_CHARS));
  const decoder = new StringDecoder('utf8');
  let bytes = 0;
  try {
    for await (const chunk of source as AsyncIterable<Buffer>) {
      bytes += chunk.length;
      if (bytes > options.maxBytes) throw new SitemapTooLargeError(options.maxBytes);
      const text = decoder.write(chunk);
      for (let at = 0; at < text.length && !parser.done; at += SLICE_CHARS) {
        parser.write(text.slice(at, at + SLICE_CHARS));
        await nextTurn();
      }
      if (parser.done) break;
    }
  } finally {
    // Stops the gunzip when reading ended early (enough URLs, too large, or an error).
    source.destroy();
  }
  if (!parser.done) parser.write(decoder.end());
  return parser.end();
}

function* sliced(body: Buffer, size: number): Generator<Buffer> {
  for (let at = 0; at < body.length; at += size) yield body.subarray(at, at + size);
}
