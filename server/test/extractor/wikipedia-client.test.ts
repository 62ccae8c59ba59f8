import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoSite, type DemoSite } from '../../src/demo/demo-site.ts';
import { WikipediaClient, WIKIPEDIA_USER_AGENT } from '../../src/extractor/wikipedia-client.ts';

/** A local server speaking the Wikipedia REST API (summary and search), with a few odd pages. */
let server: http.Server;
let base: string;
const requests: { url: string; userAgent: string | undefined }[] = [];

const summaries: Record<string, unknown> = {
  Ravi_Menon: {
    type: 'standard',
    title: 'Ravi Menon',
    titles: { normalized: 'Ravi Menon' },
    description: 'Indian politician',
    extract: 'Ravi Menon (born 1961) is an Indian politician who served as a senator from 2004 to 2016.',
    content_urls: { desktop: { page: 'https://wiki.test/wiki/Ravi_Menon' } },
  },
  John_Smith: {
    type: 'disambiguation',
    title: 'John Smith',
    description: 'Topics referred to by the same term',
    extract: 'John Smith may refer to:',
  },
  Anna_Berg: {
    type: 'standard',
    title: 'Anna Berg',
    description: 'Lake in Sweden',
    extract: 'Anna Berg is a lake in northern Sweden.',
  },
  'Lena_Ortiz_(fraudster)': {
    type: 'standard',
    title: 'Lena Ortiz (fraudster)',
    description: 'Spanish fraudster',
    extract: 'Lena Ortiz (born 1975) is a Spanish businesswoman. Ortiz was convicted of fraud in 2015.',
    content_urls: { desktop: { page: 'https://wiki.test/wiki/Lena_Ortiz_(fraudster)' } },
  },
};

beforeAll(async () => {
  server = http.createServer((req, res) => {
    requests.push({ url: req.url ?? '', userAgent: req.headers['user-agent'] });
    const url = new URL(req.url ?? '/', 'http://x');
    const send = (status: number, body: unknown) =>
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (url.pathname.startsWith('/api/rest_v1/page/summary/')) {
      const key = decodeURIComponent(url.pathname.split('/').pop() ?? '');
      if (key === 'Slow_Person') {
        setTimeout(() => send(200, summaries.Ravi_Menon), 2000);
        return;
      }
      if (key === 'Broken_Person')
        return void res.writeHead(200, { 'content-type': 'application/json' }).end('{not json');
      const summary = summaries[key];
      return summary ? send(200, summary) : send(404, { title: 'Not found.' });
    }
    if (url.pathname === '/w/rest.php/v1/search/page') {
      const q = url.searchParams.get('q') ?? '';
      if (q === 'Lena Ortiz')
        return send(200, {
          pages: [{ id: 1, key: 'Lena_Ortiz_(fraudster)', title: 'Lena Ortiz (fraudster)' }],
        });
      if (q === 'Mark Ode') return send(200, { pages: [{ id: 2, key: 'Ravi_Menon', title: 'Ravi Menon' }] });
      return send(200, { pages: [] });
    }
    send(404, {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe('Wikipedia client', () => {
  it('accepts a person page whose title is the name, with flags from its text', async () => {
    const client = new WikipediaClient({ baseUrl: base });
    const summary = await client.lookup('Ravi Menon');
    expect(summary).toEqual({
      name: 'Ravi Menon',
      personDescription:
        'Indian politician — Ravi Menon (born 1961) is an Indian politician who served as a senator from 2004 to 2016.',
      url: 'https://wiki.test/wiki/Ravi_Menon',
      politician: true,
      sanctions: false,
      criminal: false,
      // Each flag keeps what it was read from: the extract's sentence, and the short description as the
      // article writes it.
      evidence: [
        {
          flag: 'politician',
          source: 'page',
          text: 'Ravi Menon (born 1961) is an Indian politician who served as a senator from 2004 to 2016.',
          url: 'https://wiki.test/wiki/Ravi_Menon',
        },
        {
          flag: 'politician',
          source: 'page',
          text: 'Indian politician',
          url: 'https://wiki.test/wiki/Ravi_Menon',
        },
      ],
    });
    expect(requests.at(-1)).toMatchObject({
      url: '/api/rest_v1/page/summary/Ravi_Menon',
      userAgent: WIKIPEDIA_USER_AGENT,
    });
  });

  it('falls back to search, and accepts a qualified title of the same name', async () => {
    const client = new WikipediaClient({ baseUrl: base });
    const summary = await client.lookup('Lena Ortiz');
    expect(summary).toMatchObject({ name: 'Lena Ortiz', criminal: true, politician: false });
    expect(summary?.evidence).toEqual([
      {
        flag: 'criminal',
        source: 'page',
        text: 'Ortiz was convicted of fraud in 2015.',
        url: 'https://wiki.test/wiki/Lena_Ortiz_(fraudster)',
      },
    ]);
  });

  it('refuses disambiguation pages, pages not about a person and other names', async () => {
    const client = new WikipediaClient({ baseUrl: base });
    expect(await client.lookup('John Smith')).toBeNull();
    expect(await client.lookup('Anna Berg')).toBeNull();
    expect(await client.lookup('Mark Ode')).toBeNull();
    expect(await client.lookup('Nobody Here')).toBeNull();
  });

  it('returns null on timeouts, bad answers, unreachable servers and when off', async () => {
    expect(await new WikipediaClient({ baseUrl: base, timeoutMs: 300 }).lookup('Slow Person')).toBeNull();
    expect(await new WikipediaClient({ baseUrl: base }).lookup('Broken Person')).toBeNull();
    expect(
      await new WikipediaClient({ baseUrl: 'http://127.0.0.1:9', timeoutMs: 500 }).lookup('Ravi Menon'),
    ).toBeNull();
    const off = new WikipediaClient({ baseUrl: 'off' });
    expect(off.enabled).toBe(false);
    const before = requests.length;
    expect(await off.lookup('Ravi Menon')).toBeNull();
    expect(requests.length).toBe(before);
  });
});

describe('demo wiki', () => {
  let demo: DemoSite;
  beforeAll(async () => {
    demo = await startDemoSite({ port: 0 });
  }, 60_000);
  afterAll(async () => {
    await demo.close();
  });

  it('serves the same API for the fictional people of the demo', async () => {
    const client = new WikipediaClient({ baseUrl: demo.wikiUrl });
    expect(await client.lookup('Viktor Draganov')).toMatchObject({
      name: 'Viktor Draganov',
      sanctions: true,
    });
    expect(await client.lookup('Helena Marsh')).toMatchObject({
      name: 'Helena Marsh',
      politician: true,
      criminal: false,
    });
    expect(await client.lookup('Marco Vellini')).toMatchObject({ criminal: true });
    // Every flag of every summary comes with its evidence.
    for (const name of ['Viktor Draganov', 'Helena Marsh', 'Marco Vellini', 'Carla Mendes']) {
      const summary = await client.lookup(name);
      for (const flag of ['politician', 'sanctions', 'criminal'] as const) {
        if (summary?.[flag])
          expect(
            summary.evidence.some((e) => e.flag === flag),
            `${name} ${flag}`,
          ).toBe(true);
      }
    }
    expect(await client.lookup('Priya Anand')).toBeNull();
    const search = await fetch(`${demo.wikiUrl}/w/rest.php/v1/search/page?q=Carla%20Mendes&limit=3`);
    expect(((await search.json()) as { pages: { title: string }[] }).pages.map((p) => p.title)).toEqual([
      'Carla Mendes',
    ]);
  });
});
