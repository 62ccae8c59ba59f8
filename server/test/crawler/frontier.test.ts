import { describe, expect, it } from 'vitest';
import { InMemoryFrontierStore } from '../../src/crawler/frontier.ts';

const CRAWL = 'crawl-1';

describe('InMemoryFrontierStore', () => {
  it('dedupes by URL across states and reports what was new', async () => {
    const store = new InMemoryFrontierStore();
    expect(
      await store.enqueue(CRAWL, [
        { url: 'https://a.test/', kind: 'page', depth: 0 },
        { url: 'https://a.test/', kind: 'page', depth: 0 },
      ]),
    ).toEqual(['https://a.test/']);
    const claimed = await store.claimNext(CRAWL, 'a.test', Date.now());
    await store.markDone(CRAWL, claimed!.url);
    expect(await store.enqueue(CRAWL, [{ url: 'https://a.test/', kind: 'page', depth: 1 }])).toEqual([]);
    // Another crawl is a separate partition.
    expect(await store.enqueue('crawl-2', [{ url: 'https://a.test/', kind: 'page', depth: 0 }])).toHaveLength(
      1,
    );
  });

  it('claims per host, shallowest first then oldest, and only what is due', async () => {
    const store = new InMemoryFrontierStore();
    const now = Date.now();
    await store.enqueue(
      CRAWL,
      [
        { url: 'https://a.test/deep', kind: 'page', depth: 2 },
        { url: 'https://a.test/one', kind: 'page', depth: 1 },
        { url: 'https://a.test/two', kind: 'page', depth: 1 },
        { url: 'https://b.test/x', kind: 'image', depth: 0 },
      ],
      now,
    );
    expect((await store.dueHosts(CRAWL)).map((h) => h.host).sort()).toEqual(['a.test', 'b.test']);
    expect((await store.dueHosts(CRAWL, ['image'])).map((h) => h.host)).toEqual(['b.test']);
    expect((await store.claimNext(CRAWL, 'a.test', now))!.url).toBe('https://a.test/one');
    expect((await store.claimNext(CRAWL, 'a.test', now))!.url).toBe('https://a.test/two');
    expect(await store.claimNext(CRAWL, 'b.test', now, ['page'])).toBeNull();
    // A failure with a retry time goes back to the queue, due later, with one more attempt.
    await store.markFailed(CRAWL, 'https://a.test/one', 'HTTP 503', now + 60_000);
    expect((await store.claimNext(CRAWL, 'a.test', now))!.url).toBe('https://a.test/deep');
    expect(await store.claimNext(CRAWL, 'a.test', now)).toBeNull();
    const retried = await store.claimNext(CRAWL, 'a.test', now + 60_000);
    expect(retried).toMatchObject({ url: 'https://a.test/one', attempts: 1, lastError: 'HTTP 503' });
    await store.markFailed(CRAWL, retried!.url, 'HTTP 503', null);
    expect((await store.findOne(CRAWL, 'https://a.test/one'))!.state).toBe('failed');
  });

  it('recovers claims of a crashed run and survives a restart through a snapshot', async () => {
    const store = new InMemoryFrontierStore();
    await store.enqueue(CRAWL, [
      { url: 'https://a.test/1', kind: 'page', depth: 0 },
      { url: 'https://a.test/2', kind: 'page', depth: 1 },
      {
        url: 'https://a.test/i.jpg',
        kind: 'image',
        depth: 0,
        data: { pageUrl: 'https://a.test/1', alt: 'x' },
      },
    ]);
    await store.markDone(CRAWL, (await store.claimNext(CRAWL, 'a.test', Date.now()))!.url);
    await store.claimNext(CRAWL, 'a.test', Date.now(), ['page']); // claimed, then the process "dies"

    const restarted = InMemoryFrontierStore.fromSnapshot(JSON.parse(JSON.stringify(store.snapshot())));
    expect((await restarted.counts(CRAWL)).page).toMatchObject({ done: 1, claimed: 1 });
    expect(await restarted.requeueClaimed(CRAWL)).toBe(1);
    expect((await restarted.counts(CRAWL)).page).toMatchObject({ done: 1, claimed: 0, queued: 1 });
    const claimed = await restarted.claimNext(CRAWL, 'a.test', Date.now());
    expect(claimed!.url).toBe('https://a.test/i.jpg'); // depth 0 first
    expect(claimed!.data).toEqual({ pageUrl: 'https://a.test/1', alt: 'x' });
    await restarted.release(CRAWL, claimed!.url);
    expect((await restarted.findOne(CRAWL, claimed!.url))!.state).toBe('queued');
    expect(await restarted.enqueue(CRAWL, [{ url: 'https://a.test/1', kind: 'page', depth: 0 }])).toEqual([]);
  });
});
