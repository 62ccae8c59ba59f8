import { describe, expect, it } from 'vitest';
import { decodeHtml, extractPage, parseSrcset } from '../../src/crawler/html-extract.ts';

const PAGE_URL = 'https://site.test/team/index.html';

const HTML = `<!doctype html>
<html lang="en"><head>
  <title>  Our   team </title>
  <meta name="description" content="People who work here">
  <meta property="og:image" content="/img/og.jpg"><meta property="og:image:alt" content="Group photo">
  <link rel="canonical" href="https://site.test/team/">
  <style>body { color: red }</style>
  <script>var secret = "do not index";</script>
</head><body>
  <nav><a href="/">Home</a> <a href="../about#top">About</a> <a href="mailto:x@y.z">Mail</a>
    <a href="https://other.test/x?utm_source=a">Other</a> <a href="/">Home again</a></nav>
  <h1>Management</h1>
  <figure>
    <img src="/img/alice-small.jpg" srcset="/img/alice-small.jpg 320w, /img/alice-large.jpg 1280w, /img/alice-mid.jpg 640w" alt="Alice Example">
    <figcaption>Alice Example, chief executive, at the 2023 summit.</figcaption>
  </figure>
  <h2>Engineering</h2>
  <p>Our lead engineer <img src="bob.png" alt="Bob"> builds the platform since 2019.</p>
  <div><picture>
    <source type="image/avif" srcset="/img/carol-800.avif 800w, /img/carol-1600.avif 1600w">
    <source type="image/svg+xml" srcset="/img/logo.svg 3000w">
    <img src="/img/carol.jpg" alt="Carol">
  </picture></div>
  <p>Carol Example joined the data team in 2021.</p>
  <img data-src="/img/lazy.jpg" src="data:image/gif;base64,R0lGOD" alt="Lazy">
  <img src="/pixel.gif" width="1" height="1">
  <img src="/img/alice-large.jpg" alt="">
  <div hidden>hidden text</div><p style="display: none">also hidden</p>
  <noscript>enable js</noscript>
  <p>Contact &amp; visit us.</p>
</body></html>`;

describe('extractPage', () => {
  const page = extractPage(HTML, PAGE_URL);

  it('reads title, language, description and canonical', () => {
    expect(page.title).toBe('Our team');
    expect(page.lang).toBe('en');
    expect(page.description).toBe('People who work here');
    expect(page.canonical).toBe('https://site.test/team/');
  });

  it('keeps visible text only, whitespace collapsed', () => {
    expect(page.text).toContain('Management');
    expect(page.text).toContain('Our lead engineer builds the platform since 2019.');
    expect(page.text).toContain('Contact & visit us.');
    for (const hidden of [
      'do not index',
      'color: red',
      'hidden text',
      'also hidden',
      'enable js',
      'Our team',
    ]) {
      expect(page.text).not.toContain(hidden);
    }
    expect(page.text).not.toMatch(/ {2}|\n\n/);
  });

  it('caps the text', () => {
    const long = extractPage(`<p>${'word '.repeat(10_000)}</p>`, PAGE_URL, { maxTextChars: 1000 });
    expect(long.text.length).toBeLessThanOrEqual(1000);
  });

  it('lists absolute, normalised, deduplicated links', () => {
    expect(page.links).toEqual(['https://site.test/', 'https://site.test/about', 'https://other.test/x']);
  });

  it('finds every image with the best candidate and its context', () => {
    const byUrl = Object.fromEntries(page.images.map((i) => [i.url, i]));
    expect(Object.keys(byUrl)).toEqual([
      'https://site.test/img/alice-large.jpg',
      'https://site.test/team/bob.png',
      'https://site.test/img/carol-1600.avif',
      'https://site.test/img/lazy.jpg',
      'https://site.test/img/og.jpg',
    ]);
    const alice = byUrl['https://site.test/img/alice-large.jpg']!;
    expect(alice).toMatchObject({ alt: 'Alice Example', source: 'img' });
    expect(alice.caption).toBe('Alice Example, chief executive, at the 2023 summit.');
    expect(alice.nearbyText).toContain('Management');
    const bob = byUrl['https://site.test/team/bob.png']!;
    expect(bob.caption).toBe('');
    expect(bob.nearbyText).toBe('Engineering — Our lead engineer builds the platform since 2019.');
    const carol = byUrl['https://site.test/img/carol-1600.avif']!;
    expect(carol).toMatchObject({ alt: 'Carol', source: 'picture' });
    expect(carol.nearbyText).toContain('Carol Example joined the data team in 2021.');
    expect(byUrl['https://site.test/img/og.jpg']).toMatchObject({ alt: 'Group photo', source: 'meta' });
  });

  it('takes a lazily loaded image’s photo, not its placeholder', () => {
    const lazy = extractPage(
      `<p>The mayor <img src="/spacer.gif" data-src="/real1.jpg" alt="A"> and
        <img src="/blur.jpg" srcset="/blur.jpg 10w" data-srcset="/real2-800.jpg 800w, /real2-1600.jpg 1600w" alt="B"></p>`,
      PAGE_URL,
    );
    expect(lazy.images.map((i) => [i.url, i.alt])).toEqual([
      ['https://site.test/real1.jpg', 'A'],
      ['https://site.test/real2-1600.jpg', 'B'],
    ]);
  });

  it('gives every image of a large gallery its figure’s caption', () => {
    const figures = Array.from(
      { length: 3 },
      (_, f) =>
        `<figure>${Array.from({ length: 500 }, (_, i) => `<span><img src="/g${f}-${i}.jpg"></span>`).join('')}` +
        `<figcaption>Gallery ${f}</figcaption></figure>`,
    ).join('');
    const gallery = extractPage(`<div>${figures}<p>After the galleries.</p></div>`, PAGE_URL, {
      maxImages: 1200,
    });
    expect(gallery.images).toHaveLength(1200);
    expect(gallery.images[0]!.caption).toBe('Gallery 0');
    expect(gallery.images[700]!.caption).toBe('Gallery 1');
    expect(gallery.images[1199]!.caption).toBe('Gallery 2');
  });

  it('caps nearby text', () => {
    const long = extractPage(`<p>${'context '.repeat(500)}<img src="/a.jpg"></p>`, PAGE_URL, {
      maxNearbyChars: 100,
    });
    expect(long.images[0]!.nearbyText.length).toBeLessThanOrEqual(100);
  });

  it('honours <base href> and robots meta directives', () => {
    const other = extractPage(
      '<head><base href="https://cdn.test/assets/"><meta name="robots" content="noindex, nofollow"><meta name="OSINTPlatformBot" content="noimageindex"></head><body><img src="x.jpg"><a href="y">y</a></body>',
      PAGE_URL,
      { productToken: 'OSINTPlatformBot' },
    );
    expect(other.images[0]!.url).toBe('https://cdn.test/assets/x.jpg');
    expect(other.links).toEqual(['https://cdn.test/assets/y']);
    expect(other.robots).toEqual({ noindex: true, nofollow: true, noimageindex: true });
    expect(page.robots).toEqual({ noindex: false, nofollow: false, noimageindex: false });
  });
});

describe('parseSrcset', () => {
  it('parses width and density descriptors, and URLs containing commas', () => {
    expect(parseSrcset('a.jpg 1x, b.jpg 2x')).toEqual([
      { url: 'a.jpg', width: 0, density: 1 },
      { url: 'b.jpg', width: 0, density: 2 },
    ]);
    expect(parseSrcset('/img/w_100,h_50/a.jpg 100w,/img/w_200,h_100/a.jpg 200w').map((c) => c.url)).toEqual([
      '/img/w_100,h_50/a.jpg',
      '/img/w_200,h_100/a.jpg',
    ]);
  });
});

describe('decodeHtml', () => {
  it('uses the header charset, then <meta charset>, then UTF-8', () => {
    const latin1 = Buffer.from('<p>caf\u00e9</p>', 'latin1');
    expect(decodeHtml(latin1, 'text/html; charset=ISO-8859-1')).toBe('<p>café</p>');
    const withMeta = Buffer.concat([Buffer.from('<meta charset="windows-1252">'), latin1]);
    expect(decodeHtml(withMeta, 'text/html')).toContain('café');
    expect(decodeHtml(Buffer.from('<p>café</p>'), undefined)).toBe('<p>café</p>');
  });
});
