import fs from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/db/database.ts';
import type { FaceSightingInput, ResultInput } from '../../src/extractor/analysis-types.ts';
import { TextAnalyzer } from '../../src/extractor/analyzer.ts';
import { DEMO_WATCHLIST_FTM, importWatchlistFile } from '../../src/extractor/watchlist-file.ts';
import { WikipediaClient } from '../../src/extractor/wikipedia-client.ts';
import { AuditRepository } from '../../src/repositories/audit.repository.ts';
import { WatchlistRepository } from '../../src/repositories/watchlist.repository.ts';
import { WatchlistService } from '../../src/services/watchlist.service.ts';
import { createTestDatabase } from '../support/test-database.ts';

function result(
  key: string,
  parts: { url?: string; title?: string; text?: string; caption?: string; alt?: string },
): ResultInput {
  return {
    key,
    page: { url: parts.url ?? `http://site.test/${key}`, title: parts.title ?? '', text: parts.text ?? '' },
    image: {
      imageUrl: `http://site.test/${key}.jpg`,
      alt: parts.alt ?? '',
      caption: parts.caption ?? '',
      nearbyText: parts.title ?? '',
    },
    similarity: 0.9,
    crawledAt: new Date('2024-05-01'),
  };
}

let database: DatabaseHandle;
let watchlists: WatchlistService;

beforeAll(async () => {
  database = await createTestDatabase();
  watchlists = new WatchlistService(new WatchlistRepository(database.db), new AuditRepository(database.db));
  await importWatchlistFile(watchlists, DEMO_WATCHLIST_FTM, 'demo');
  // Fictional people whose entries also spell their names in other scripts, as OpenSanctions entries do:
  // Arabic and Hebrew; Chinese and Japanese; Korean.
  const scripts = path.join(await fs.mkdtemp(path.join(os.tmpdir(), 'watchlist-')), 'scripts.ftm.json');
  const person = (id: string, name: string, alias: string[]) =>
    JSON.stringify({
      id,
      schema: 'Person',
      properties: {
        name: [name],
        alias,
        topics: ['sanction'],
        sourceUrl: [`https://watchlist.example/test/${id}`],
      },
    });
  await fs.writeFile(
    scripts,
    [
      person('test-samira-haddad', 'Samira Haddad', ['سميرة حداد', 'סמירה חדאד']),
      person('test-zhao-minghua', 'Zhao Minghua', ['赵明华', '趙明華']),
      person('test-tanaka-hiroshi', 'Tanaka Hiroshi', ['田中 浩志']),
      person('test-park-jiwoo', 'Park Ji-woo', ['박지우']),
      // A two-letter name: as a stretch of a longer run too often part of another word, never looked for.
      person('test-wang-li', 'Wang Li', ['王丽']),
    ].join('\n') + '\n',
  );
  await importWatchlistFile(watchlists, scripts, 'scripts');
});
afterAll(async () => {
  await database.close();
});

describe('TextAnalyzer', () => {
  it('names each picture, merging variants across results into the best name', async () => {
    const analysis = await new TextAnalyzer().analyze(
      [
        result('a', {
          title: 'Festival opens',
          caption: 'Organisers Priya Anand (left) and Jo Whitcombe with Mayor Helena Marsh (right).',
          text: 'Mayor Helena Marsh opened the festival. "Thank you," said Ms Marsh.',
        }),
        result('b', {
          title: 'Profile: H. Marsh',
          caption: 'H. Marsh in her office.',
          text: 'H. Marsh chairs the planning committee.',
        }),
        result('c', { caption: 'Helena Marsch at the library.', text: 'The library reopened.' }),
        result('d', { caption: 'Shoppers at the market.', text: 'The market returned.' }),
      ],
      [],
    );
    expect(analysis.bestName).toBe('Helena Marsh');
    expect(analysis.results.map((r) => r.personName)).toEqual([
      'Helena Marsh',
      'Helena Marsh',
      'Helena Marsh',
      '',
    ]);
    expect(analysis.namesFound).toBe(1);
    expect(analysis.results[0]!.alternativeNames).toEqual(['Priya Anand', 'Jo Whitcombe']);
    expect(analysis.results[0]).toMatchObject({ politician: true, criminal: false, sanctions: false });
    expect(analysis.results[3]!.personDesc).toBe('Shoppers at the market.');
    expect(analysis.wikipedia).toBeNull();
  });

  it("points a teaser's evidence and seen-with at the article whose caption it borrowed", async () => {
    // A home page shows the photo without a caption; the pipeline lends it the article's caption.
    const teaser: ResultInput = {
      ...result('home', {
        url: 'http://news.test/',
        title: 'Home',
        text: 'Weather: rain. Sports: the derby ends 2–2.',
      }),
      teaser: true,
    };
    teaser.image.caption =
      'Anna Lindqvist, who was sanctioned by the Council last year, arrives with Jo Whitcombe.';
    teaser.image.captionUrl = 'http://news.test/world/lindqvist';
    const analysis = await new TextAnalyzer().analyze([teaser], []);
    const [analysed] = analysis.results;
    expect(analysed!.personName).toBe('Anna Lindqvist');
    const sanctions = analysed!.evidence.filter((e) => e.flag === 'sanctions');
    expect(sanctions.map((e) => [e.source, e.url])).toEqual([['page', 'http://news.test/world/lindqvist']]);
    expect(analysed!.connections.map((c) => [c.name, c.aboutUrl])).toEqual([
      ['Jo Whitcombe', 'http://news.test/world/lindqvist'],
    ]);
  });

  it('checks a name written in Cyrillic against the watch-list entry spelled in Latin', async () => {
    const analysis = await new TextAnalyzer({ watchlists }).analyze(
      [result('ru', { caption: 'Виктор Драганов на встрече в Софии.', text: 'Встреча прошла в четверг.' })],
      [],
    );
    const [analysed] = analysis.results;
    expect(analysed!.personName).toBe('Виктор Драганов');
    expect(analysed!.sanctions).toBe(true);
    expect(analysed!.evidence.filter((e) => e.flag === 'sanctions').map((e) => e.source)).toContain(
      'watchlist',
    );
  });

  it("finds the lists' people named in Arabic or Hebrew, scripts without capitals, and checks them", async () => {
    const analysis = await new TextAnalyzer({ watchlists }).analyze(
      [
        result('ar', { caption: 'سَميرة حداد في مؤتمر صحفي في بيروت.' }),
        result('he', { caption: 'סמירה חדאד בכנס בתל אביב.' }),
        result('nobody', { caption: 'مؤتمر صحفي في بيروت.' }),
      ],
      [],
    );
    const [arabic, hebrew, nobody] = analysis.results;
    expect(arabic).toMatchObject({ personName: 'سميرة حداد', sanctions: true });
    expect(hebrew).toMatchObject({ personName: 'סמירה חדאד', sanctions: true });
    expect(arabic!.evidence.map((e) => [e.flag, e.source, e.url])).toContainEqual([
      'sanctions',
      'watchlist',
      'https://watchlist.example/test/test-samira-haddad',
    ]);
    expect(nobody).toMatchObject({ personName: '', sanctions: false });
  });

  it("finds the lists' people named in Chinese, Japanese or Korean, written without spaces between words", async () => {
    const analysis = await new TextAnalyzer({ watchlists }).analyze(
      [
        result('zh', { caption: '赵明华在北京出席记者会。' }),
        result('zh-hant', { caption: '趙明華出席記者會。' }),
        result('ja', { caption: '記者会見に臨む田中浩志氏。' }),
        result('ko', { caption: '박지우가 기자회견에서 말했다.' }),
        result('two-letters', { caption: '王丽华在会上发言。' }),
        result('nobody', { caption: '北京的记者会。' }),
      ],
      [],
    );
    const byKey = Object.fromEntries(analysis.results.map((r) => [r.key, r]));
    expect(byKey.zh).toMatchObject({ personName: '赵明华', sanctions: true });
    expect(byKey['zh-hant']).toMatchObject({ personName: '趙明華', sanctions: true });
    expect(byKey.ja).toMatchObject({ personName: '田中 浩志', sanctions: true });
    expect(byKey.ko).toMatchObject({ personName: '박지우', sanctions: true });
    expect(byKey.zh!.evidence.map((e) => [e.flag, e.source, e.url])).toContainEqual([
      'sanctions',
      'watchlist',
      'https://watchlist.example/test/test-zhao-minghua',
    ]);
    expect(byKey['two-letters']).toMatchObject({ personName: '', sanctions: false });
    expect(byKey.nobody).toMatchObject({ personName: '', sanctions: false });
  });

  it('gives every raised flag its evidence: page sentences and watch-list entries', async () => {
    const analysis = await new TextAnalyzer({ watchlists }).analyze(
      [
        result('s', {
          title: 'Businessman at the forum',
          caption: 'Victor Draganov at the energy forum.',
          text: 'Victor Draganov spoke at the energy forum on Monday.',
        }),
      ],
      [],
    );
    const r = analysis.results[0]!;
    expect(r).toMatchObject({
      personName: 'Victor Draganov',
      sanctions: true,
      politician: false,
      criminal: false,
    });
    expect(r.evidence).toEqual([
      {
        flag: 'sanctions',
        source: 'watchlist',
        text: 'Viktor Draganov — demo (sanction)',
        url: 'https://watchlist.example/demo/sanctions/viktor-draganov',
        listName: 'demo',
        entryId: 'demo-viktor-draganov',
        score: expect.any(Number) as number,
      },
    ]);
    expect(r.evidence[0]!.score).toBeGreaterThanOrEqual(0.85);
    expect(r.evidence[0]!.score).toBeLessThan(1);
  });

  it('raises nothing for negated statements, and nothing for people the sentence is not about', async () => {
    const analysis = await new TextAnalyzer({ watchlists }).analyze(
      [
        result('n', {
          caption: 'Liam Wade leaves court.',
          text: 'Liam Wade was acquitted of all charges. Wade met Victor Hale, who was found guilty of fraud.',
        }),
      ],
      [],
    );
    const r = analysis.results[0]!;
    expect(r).toMatchObject({
      personName: 'Liam Wade',
      criminal: false,
      politician: false,
      sanctions: false,
    });
    expect(r.evidence).toEqual([]);
    const hale = r.connections.find((c) => c.name === 'Victor Hale')!;
    expect(hale).toMatchObject({ criminal: true, aboutUrl: 'http://site.test/n', face: null });
    expect(hale.evidence.map((e) => e.source).sort()).toEqual(['page', 'watchlist']);
  });

  it('lists people seen with the subject: co-named on the page and other faces named elsewhere', async () => {
    const sighting: FaceSightingInput = {
      resultKey: 'w',
      page: {
        url: 'http://other.test/okafor',
        title: 'Minister visits port',
        text: 'Minister Amelia Okafor visited the port on Tuesday.',
      },
      image: {
        imageUrl: 'http://other.test/okafor.jpg',
        alt: '',
        caption: 'Amelia Okafor at the port.',
        nearbyText: '',
      },
      face: { faceId: 7, imageId: 3 },
    };
    const analysis = await new TextAnalyzer({ watchlists }).analyze(
      [
        result('w', {
          caption: 'Nora Weber at the food bank with Tom Reed.',
          text: 'Nora Weber runs the Ashvale food bank. Tom Reed volunteers on Saturdays.',
        }),
      ],
      [sighting],
    );
    const r = analysis.results[0]!;
    expect(r.personName).toBe('Nora Weber');
    expect(r.connections.map((c) => c.name)).toEqual(['Tom Reed', 'Amelia Okafor']);
    const okafor = r.connections[1]!;
    expect(okafor).toMatchObject({
      politician: true,
      face: { faceId: 7, imageId: 3 },
      aboutUrl: 'http://other.test/okafor',
    });
    expect(okafor.evidence.map((e) => e.source).sort()).toEqual(['page', 'watchlist']);
    expect(r.connections[0]).toMatchObject({
      politician: false,
      sanctions: false,
      criminal: false,
      evidence: [],
    });
  });

  it('adds the Wikipedia summary of the best name, and survives a failing lookup', async () => {
    const wiki = http.createServer((req, res) => {
      if (req.url === '/api/rest_v1/page/summary/Nora_Weber') {
        res.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            type: 'standard',
            title: 'Nora Weber',
            description: 'Charity director',
            extract: 'Nora Weber (born 1980) is a former councillor and charity director.',
            content_urls: { desktop: { page: 'http://wiki.test/wiki/Nora_Weber' } },
          }),
        );
      } else res.writeHead(404, { 'content-type': 'application/json' }).end('{}');
    });
    await new Promise<void>((resolve) => wiki.listen(0, '127.0.0.1', resolve));
    try {
      const base = `http://127.0.0.1:${(wiki.address() as AddressInfo).port}`;
      const ok = await new TextAnalyzer({ wikipedia: new WikipediaClient({ baseUrl: base }) }).analyze(
        [result('x', { caption: 'Nora Weber at work.' })],
        [],
      );
      expect(ok.wikipedia).toEqual({
        name: 'Nora Weber',
        personDescription:
          'Charity director — Nora Weber (born 1980) is a former councillor and charity director.',
        url: 'http://wiki.test/wiki/Nora_Weber',
        politician: true,
        sanctions: false,
        criminal: false,
        // The flag keeps the sentence of the article it was read from.
        evidence: [
          {
            flag: 'politician',
            source: 'page',
            text: 'Nora Weber (born 1980) is a former councillor and charity director.',
            url: 'http://wiki.test/wiki/Nora_Weber',
          },
        ],
      });
      const down = new WikipediaClient({ baseUrl: 'http://127.0.0.1:9', timeoutMs: 500 });
      const failing = await new TextAnalyzer({ wikipedia: down }).analyze(
        [result('x', { caption: 'Nora Weber at work.' })],
        [],
      );
      expect(failing.wikipedia).toBeNull();
      expect(failing.results[0]!.personName).toBe('Nora Weber');
    } finally {
      wiki.closeAllConnections();
      await new Promise((resolve) => wiki.close(resolve));
    }
  });
});
