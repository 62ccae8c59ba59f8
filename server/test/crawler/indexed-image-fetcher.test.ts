import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { sha256Hex } from '../../src/crawler/image-process.ts';
import { ImageUnreachableError, IndexedImageFetcher } from '../../src/services/indexed-image-fetcher.ts';
import { bytes, sequence, status, text, TestServer } from './test-server.ts';

// A reindex fetches every indexed image again from its site. It asks as the crawler would today: an image
// the site's robots.txt no longer allows, or that now says X-Robots-Tag: noindex, is not fetched or kept;
// a robots.txt that cannot be read leaves the image for a later try.

const photo = Buffer.from('not really a jpeg, but bytes with a known hash');
const SITES = ['open.test', 'closed.test', 'tagged.test', 'down.test', 'back.test'];
let server: TestServer;
let fetcher: IndexedImageFetcher;

beforeAll(async () => {
  server = await TestServer.start({});
  server.route('open.test/robots.txt', text('User-agent: *\nDisallow: /private/\n'));
  server.route('closed.test/robots.txt', text('User-agent: *\nDisallow: /img/\n'));
  server.route('tagged.test/robots.txt', status(404));
  server.route('down.test/robots.txt', status(503));
  server.route('back.test/robots.txt', sequence([status(503)], text('User-agent: *\nAllow: /\n')));
  for (const site of SITES) server.route(`${site}/img/p.jpg`, bytes(photo, 'image/jpeg'));
  server.route('tagged.test/img/p.jpg', (_req, res) => {
    res.writeHead(200, { 'content-type': 'image/jpeg', 'x-robots-tag': 'noindex' }).end(photo);
  });
  // The crawl that found the images: its sites pinned to this server, as the demo crawl is.
  const crawl = {
    id: 1,
    is_demo: false,
    options: {
      allowedPorts: [server.port],
      hostAddresses: Object.fromEntries(SITES.map((site) => [site, '127.0.0.1'])),
      trustedAddresses: ['127.0.0.1'],
      politenessDelayMs: 0,
    },
  };
  fetcher = new IndexedImageFetcher(
    loadConfig({ CRAWL_DELAY_MS: '0' }),
    { findAllOptions: async () => [crawl] },
    { warn: () => undefined },
  );
});
afterAll(() => server.close());

const image = (site: string) => ({
  id: 1,
  contentHash: sha256Hex(photo),
  urls: [server.url('/img/p.jpg', site)],
});

describe('fetching an indexed image again for a reindex', () => {
  it('gets it where robots.txt allows it', async () => {
    expect(await fetcher.bytesOf(image('open.test'))).toEqual(photo);
  });

  it('leaves it where robots.txt now disallows it, without asking for it', async () => {
    expect(await fetcher.bytesOf(image('closed.test'))).toBeUndefined();
    expect(server.hits('/img/p.jpg', 'closed.test')).toEqual([]);
  });

  it('drops it where it now says X-Robots-Tag: noindex', async () => {
    expect(await fetcher.bytesOf(image('tagged.test'))).toBeUndefined();
  });

  it('tries again later where robots.txt cannot be read, without asking for the image', async () => {
    await expect(fetcher.bytesOf(image('down.test'))).rejects.toBeInstanceOf(ImageUnreachableError);
    expect(server.hits('/img/p.jpg', 'down.test')).toEqual([]);
  });

  it('asks again a minute later for a robots.txt it could not read (the retry pass of the run gets the image)', async () => {
    await expect(fetcher.bytesOf(image('back.test'))).rejects.toBeInstanceOf(ImageUnreachableError);
    // At once: still unread, not asked again.
    await expect(fetcher.bytesOf(image('back.test'))).rejects.toBeInstanceOf(ImageUnreachableError);
    expect(server.hits('/robots.txt', 'back.test')).toHaveLength(1);
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(Date.now() + 61_000);
      expect(await fetcher.bytesOf(image('back.test'))).toEqual(photo);
    } finally {
      vi.useRealTimers();
    }
    expect(server.hits('/robots.txt', 'back.test')).toHaveLength(2);
  });

  it('reads each site’s robots.txt once', async () => {
    await fetcher.bytesOf(image('open.test'));
    expect(server.hits('/robots.txt', 'open.test')).toHaveLength(1);
  });
});
