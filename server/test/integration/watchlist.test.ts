import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WatchlistImportResult, WatchlistListResponse } from '@osint/contract/watchlist';
import { WATCHLIST_MESSAGES } from '@osint/contract/watchlist';
import { sql, type Kysely } from 'kysely';
import { up as recomputeStoredKeys } from '../../src/db/migrations/0040_copied_faces_by_image_and_latin_watchlist_keys.ts';
import { up as recomputeKeysOf0043 } from '../../src/db/migrations/0043_watchlist_keys_x_as_ks_korean_whole.ts';
import { up as recomputeKeysOf0048 } from '../../src/db/migrations/0048_watchlist_keys_ye_and_ukrainian.ts';
import { acquireDataDirLock } from '../../src/lib/data-dir-lock.ts';
import {
  DEMO_WATCHLIST_CSV,
  DEMO_WATCHLIST_FTM,
  importDemoWatchlistIfNone,
  importWatchlistFile,
} from '../../src/extractor/watchlist-file.ts';
import { createAdmin, createUser, login } from '../support/fixtures.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';

const run = promisify(execFile);
let t: TestApp;
let admin: string;

beforeAll(async () => {
  t = await createTestApp();
  admin = await createAdmin(t);
});
afterAll(async () => {
  await t.close();
});

const upload = (payload: string | Buffer, name: string | undefined, cookie = admin, type = 'text/plain') =>
  t.request({
    method: 'POST',
    url: `/api/admin/watchlists${name ? `?name=${encodeURIComponent(name)}` : ''}`,
    cookie,
    headers: { 'content-type': type },
    payload,
  });

async function entriesOf(listName: string) {
  return t.db
    .selectFrom('watchlist_entries as e')
    .innerJoin('watchlists as w', 'w.id', 'e.list_id')
    .where('w.state', '=', 'READY')
    .where('e.list_name', '=', listName)
    .select([
      'e.entity_id',
      'e.name',
      'e.aliases',
      'e.topics',
      'e.politician',
      'e.sanctions',
      'e.criminal',
      'e.source_url',
      'e.name_keys',
      'e.birth_dates',
      'e.countries',
    ])
    .orderBy('e.entity_id')
    .execute();
}

describe('watch-list import', () => {
  it('imports FollowTheMoney JSON lines through the route, with flags from the topics', async () => {
    const file = await fs.readFile(DEMO_WATCHLIST_FTM);
    const response = await upload(file, 'sanctions-ftm', admin, 'application/json');
    expect(response.statusCode, response.body).toBe(200);
    const result = response.json<WatchlistImportResult>();
    expect(result).toMatchObject({
      listName: 'sanctions-ftm',
      format: 'ftm',
      entryCount: 9,
      politicianCount: 4,
      sanctionsCount: 3,
      criminalCount: 2,
      skippedCount: 0,
    });
    const rows = await entriesOf('sanctions-ftm');
    const draganov = rows.find((r) => r.entity_id === 'demo-viktor-draganov')!;
    expect(draganov).toMatchObject({
      name: 'Viktor Draganov',
      aliases: ['Viktor Ivanovich Draganov', 'Victor Draganoff'],
      topics: ['sanction'],
      sanctions: true,
      politician: false,
      criminal: false,
      source_url: 'https://watchlist.example/demo/sanctions/viktor-draganov',
      birth_dates: ['1966-08-21'],
      countries: ['bg'],
    });
    expect(draganov.name_keys).toEqual(expect.arrayContaining(['viktor', 'draganov', 'drag*', 'draganoff']));
    const vellini = rows.find((r) => r.entity_id === 'demo-marco-vellini')!;
    expect(vellini).toMatchObject({ criminal: true, sanctions: false, topics: ['crime', 'wanted'] });

    const audit = await t.db
      .selectFrom('audit_log')
      .where('action', '=', 'admin.watchlist.imported')
      .select(['target', 'detail'])
      .execute();
    expect(audit).toEqual([
      { target: 'watchlist:sanctions-ftm', detail: { format: 'ftm', entryCount: 9, skippedCount: 0 } },
    ]);
  });

  it('imports the simple CSV through the route, deriving flags from the sanctions and dataset columns', async () => {
    const file = await fs.readFile(DEMO_WATCHLIST_CSV);
    const response = await upload(file, 'sanctions-csv', admin, 'text/csv');
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json<WatchlistImportResult>()).toMatchObject({
      format: 'csv',
      entryCount: 9,
      politicianCount: 4,
      sanctionsCount: 3,
      criminalCount: 2,
    });
    const rows = await entriesOf('sanctions-csv');
    expect(rows.find((r) => r.entity_id === 'demo-viktor-draganov')).toMatchObject({
      aliases: ['Victor Draganoff', 'Viktor Ivanovich Draganov'],
      sanctions: true,
      source_url: null,
    });
    expect(rows.find((r) => r.entity_id === 'demo-amelia-okafor')).toMatchObject({ politician: true });
  });

  it('counts bad lines and keeps the good ones', async () => {
    const good = (id: string, name: string) =>
      JSON.stringify({ id, schema: 'Person', properties: { name: [name], topics: ['role.pep'] } });
    const body = [
      good('a', 'Ana Ruiz'),
      '{"id": "broken", "schema": "Person", "properties": {',
      'not json at all',
      JSON.stringify({ id: 'nameless', schema: 'Person', properties: { topics: ['sanction'] } }),
      JSON.stringify({ id: 'addr', schema: 'Address', properties: { full: ['1 Main St'] } }),
      good('a', 'Ana Ruiz again'),
      good('b', 'Bo Lind'),
      '',
    ].join('\n');
    const response = await upload(body, 'messy');
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json<WatchlistImportResult>()).toMatchObject({ entryCount: 2, skippedCount: 4 });
  });

  it('refuses a file that is neither format with a clear 400, and keeps nothing', async () => {
    for (const junk of ['hello world\nthis is not a list\n', '%PDF-1.7 binary', '']) {
      const response = await upload(junk, 'junk');
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({
        statusCode: 400,
        message: WATCHLIST_MESSAGES.unrecognisedFormat,
      });
    }
    const headerOnly = await upload('id,schema,name,aliases\n', 'junk');
    expect(headerOnly.statusCode).toBe(400);
    expect(headerOnly.json()).toMatchObject({ message: WATCHLIST_MESSAGES.emptyList });
    const lists = (
      await t.request({ method: 'GET', url: '/api/admin/watchlists', cookie: admin })
    ).json<WatchlistListResponse>();
    expect(lists.lists.map((l) => l.listName)).not.toContain('junk');
    const leftovers = await t.db.selectFrom('watchlists').where('name', '=', 'junk').select('id').execute();
    expect(leftovers).toEqual([]);
  });

  it('refuses a bad list name and a body over the limit', async () => {
    const bad = await upload('{}', '../etc');
    expect(bad.statusCode).toBe(400);
    const tooLarge = await t.request({
      method: 'POST',
      url: '/api/admin/watchlists?name=big',
      cookie: admin,
      headers: { 'content-type': 'text/plain', 'content-length': String(60 * 1024 * 1024) },
      payload: 'x',
    });
    expect(tooLarge.statusCode).toBe(413);
  });

  it('re-importing a list replaces it', async () => {
    const first = [
      JSON.stringify({ id: 'x1', schema: 'Person', properties: { name: ['Old One'], topics: ['sanction'] } }),
      JSON.stringify({ id: 'x2', schema: 'Person', properties: { name: ['Old Two'], topics: ['sanction'] } }),
    ].join('\n');
    expect((await upload(first, 'replace-me')).statusCode).toBe(200);
    const second = 'id,schema,name,aliases,sanctions,dataset\ny1,Person,New Person,,,Demo PEPs\n';
    const response = await upload(second, 'replace-me');
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json<WatchlistImportResult>()).toMatchObject({
      format: 'csv',
      entryCount: 1,
      politicianCount: 1,
    });
    expect((await entriesOf('replace-me')).map((r) => r.name)).toEqual(['New Person']);
    const rows = await t.db.selectFrom('watchlists').where('name', '=', 'replace-me').select('id').execute();
    expect(rows).toHaveLength(1);
    const list = (
      await t.request({ method: 'GET', url: '/api/admin/watchlists', cookie: admin })
    ).json<WatchlistListResponse>();
    expect(list.lists.find((l) => l.listName === 'replace-me')).toMatchObject({
      format: 'csv',
      entryCount: 1,
      importedBy: 'admin@provider.example.org',
    });
  });

  it('matches names of the lists (spelling variants, aliases, initials) and deletes a list', async () => {
    const service = t.container.services.watchlists;
    const matches = await service.match('Victor Draganov');
    expect(matches.map((m) => [m.entry.listName, m.entry.entityId])).toEqual(
      expect.arrayContaining([
        ['sanctions-ftm', 'demo-viktor-draganov'],
        ['sanctions-csv', 'demo-viktor-draganov'],
      ]),
    );
    expect(matches[0]!.score).toBeGreaterThanOrEqual(0.85);
    expect((await service.match('Marko Velini'))[0]?.entry.entityId).toBe('demo-marco-vellini');
    expect(await service.match('Grace Okafor')).toEqual([]);
    expect(await service.match('Draganov')).toEqual([]);
    // A flag never rests on an initial, nor on a company's name read as a person's.
    expect((await service.match('Helena Marsh'))[0]?.entry.entityId).toBe('demo-helena-marsh');
    expect(await service.match('H. Marsh')).toEqual([]);
    expect(await service.match('Northwind Logistics')).toEqual([]);

    const deleted = await t.request({
      method: 'DELETE',
      url: '/api/admin/watchlists/sanctions-csv',
      cookie: admin,
    });
    expect(deleted.statusCode).toBe(204);
    expect((await service.match('Viktor Draganov')).map((m) => m.entry.listName)).not.toContain(
      'sanctions-csv',
    );
    const again = await t.request({
      method: 'DELETE',
      url: '/api/admin/watchlists/sanctions-csv',
      cookie: admin,
    });
    expect(again.statusCode).toBe(404);
  });

  it('finds entries in Cyrillic imported before names were compared in Latin letters once their keys are recomputed (0040)', async () => {
    const header =
      '"id","schema","name","aliases","birth_date","countries","addresses","identifiers","sanctions","phones","emails","dataset","first_seen","last_seen","last_change"';
    const line =
      '"demo-cyrillic","Person","Игорь Величко","","","ua","","","Demo sanctions","","","Demo sanctions list","","",""';
    const response = await upload(`${header}\n${line}\n`, 'cyrillic-csv', admin, 'text/csv');
    expect(response.statusCode, response.body).toBe(200);
    const service = t.container.services.watchlists;
    expect((await service.match('Igor Velichko'))[0]?.entry.entityId).toBe('demo-cyrillic');
    const keysNow = (await entriesOf('cyrillic-csv'))[0]!.name_keys;
    expect(keysNow).toEqual(expect.arrayContaining(['igor', 'velichko']));

    // As an import before stored them: in Cyrillic, which no Latin name finds.
    await t.db
      .updateTable('watchlist_entries')
      .set({ name_keys: sql<string[]>`array['игорь', 'игор*', 'величко', 'вели*']` })
      .where('entity_id', '=', 'demo-cyrillic')
      .execute();
    expect(await service.match('Igor Velichko')).toEqual([]);
    await recomputeStoredKeys(t.db as unknown as Kysely<unknown>);
    expect((await entriesOf('cyrillic-csv'))[0]!.name_keys).toEqual(keysNow);
    expect((await service.match('Igor Velichko'))[0]?.entry.entityId).toBe('demo-cyrillic');
    expect(
      (await t.request({ method: 'DELETE', url: '/api/admin/watchlists/cyrillic-csv', cookie: admin }))
        .statusCode,
    ).toBe(204);
  });

  it('finds "Aleksandr" under "Alexander" and "Maksim" under "Maxim", also in keys stored before (0043)', async () => {
    const header =
      '"id","schema","name","aliases","birth_date","countries","addresses","identifiers","sanctions","phones","emails","dataset","first_seen","last_seen","last_change"';
    const line =
      '"demo-x","Person","Alexander Maximov","Αλέξανδρος Μαξίμοφ","","ru","","","Demo sanctions","","","Demo sanctions list","","",""';
    const response = await upload(`${header}\n${line}\n`, 'x-csv', admin, 'text/csv');
    expect(response.statusCode, response.body).toBe(200);
    const service = t.container.services.watchlists;
    for (const name of ['Aleksandr Maksimov', 'Alexander Maximov', 'Aleksander Maximov'])
      expect((await service.match(name))[0]?.entry.entityId, name).toBe('demo-x');
    // Not a different name that merely shares letters.
    expect(await service.match('Alexandra Maksimova')).toEqual([]);
    const keysNow = (await entriesOf('x-csv'))[0]!.name_keys;

    // As an import before stored them: with "x", which the lookup of "Aleksandr Maksimov" does not find.
    await t.db
      .updateTable('watchlist_entries')
      .set({ name_keys: sql<string[]>`array['alexander', 'alex*', 'maximov', 'maxi*']` })
      .where('entity_id', '=', 'demo-x')
      .execute();
    expect(await service.match('Aleksandr Maksimov')).toEqual([]);
    await recomputeKeysOf0043(t.db as unknown as Kysely<unknown>);
    expect((await entriesOf('x-csv'))[0]!.name_keys).toEqual(keysNow);
    expect((await service.match('Aleksandr Maksimov'))[0]?.entry.entityId).toBe('demo-x');
    expect(
      (await t.request({ method: 'DELETE', url: '/api/admin/watchlists/x-csv', cookie: admin })).statusCode,
    ).toBe(204);
  });

  it('finds "Yevgeny" under "Евгений" and Ukrainian spellings under theirs, also in keys stored before (0048)', async () => {
    const header =
      '"id","schema","name","aliases","birth_date","countries","addresses","identifiers","sanctions","phones","emails","dataset","first_seen","last_seen","last_change"';
    const lines = [
      '"demo-ye","Person","Yevgeny Yermakov","","","ru","","","Demo sanctions","","","Demo sanctions list","","",""',
      '"demo-ua","Person","Hryhoriy Kovalenko","","","ua","","","Demo sanctions","","","Demo sanctions list","","",""',
    ];
    const response = await upload(`${header}\n${lines.join('\n')}\n`, 'ye-csv', admin, 'text/csv');
    expect(response.statusCode, response.body).toBe(200);
    const service = t.container.services.watchlists;
    for (const [name, id] of [
      ['Евгений Ермаков', 'demo-ye'],
      ['Evgeny Ermakov', 'demo-ye'],
      ['Григорій Коваленко', 'demo-ua'],
    ] as const)
      expect((await service.match(name))[0]?.entry.entityId, name).toBe(id);
    const keysNow = (await entriesOf('ye-csv')).map((entry) => entry.name_keys);

    // As an import before stored them: with the "y", which the lookup of "Евгений" does not find.
    await t.db
      .updateTable('watchlist_entries')
      .set({ name_keys: sql<string[]>`array['yevgeny', 'yevg*', 'yermakov', 'yerm*']` })
      .where('entity_id', '=', 'demo-ye')
      .execute();
    expect(await service.match('Евгений Ермаков')).toEqual([]);
    await recomputeKeysOf0048(t.db as unknown as Kysely<unknown>);
    expect((await entriesOf('ye-csv')).map((entry) => entry.name_keys)).toEqual(keysNow);
    expect((await service.match('Евгений Ермаков'))[0]?.entry.entityId).toBe('demo-ye');
    expect(
      (await t.request({ method: 'DELETE', url: '/api/admin/watchlists/ye-csv', cookie: admin })).statusCode,
    ).toBe(204);
  });

  it('keeps Korean syllables whole in keys, also in keys stored before (0043)', async () => {
    const header =
      '"id","schema","name","aliases","birth_date","countries","addresses","identifiers","sanctions","phones","emails","dataset","first_seen","last_seen","last_change"';
    const line =
      '"demo-ko","Person","Park Ji-woo","박지우","","kr","","","Demo sanctions","","","Demo sanctions list","","",""';
    const response = await upload(`${header}\n${line}\n`, 'ko-csv', admin, 'text/csv');
    expect(response.statusCode, response.body).toBe(200);
    const keysNow = (await entriesOf('ko-csv'))[0]!.name_keys;
    expect(keysNow).toContain('박지우');
    const service = t.container.services.watchlists;
    expect((await service.namesIn('박지우가 말했다')).map((n) => n.name)).toEqual(['박지우']);

    // As an import before stored them: the syllables split into their letters, which no lookup finds.
    const split = '박지우'.normalize('NFD');
    await t.db
      .updateTable('watchlist_entries')
      .set({
        name_keys: sql<
          string[]
        >`array['park', 'ji', 'woo', ${split}, ${`${[...split].slice(0, 4).join('')}*`}]`,
      })
      .where('entity_id', '=', 'demo-ko')
      .execute();
    expect(await service.namesIn('박지우가 말했다')).toEqual([]);
    await recomputeKeysOf0043(t.db as unknown as Kysely<unknown>);
    expect((await entriesOf('ko-csv'))[0]!.name_keys).toEqual(keysNow);
    expect((await service.namesIn('박지우가 말했다')).map((n) => n.name)).toEqual(['박지우']);
    expect(
      (await t.request({ method: 'DELETE', url: '/api/admin/watchlists/ko-csv', cookie: admin })).statusCode,
    ).toBe(204);
  });

  it('is for admins only', async () => {
    await createUser(t, { email: 'analyst@agency.example.org' });
    const user = await login(t, 'analyst@agency.example.org');
    expect((await upload('{}', 'x', user)).statusCode).toBe(403);
    expect((await t.request({ method: 'GET', url: '/api/admin/watchlists', cookie: user })).statusCode).toBe(
      403,
    );
    expect((await t.request({ method: 'GET', url: '/api/admin/watchlists' })).statusCode).toBe(401);
    expect(
      (await t.request({ method: 'DELETE', url: '/api/admin/watchlists/demo', cookie: user })).statusCode,
    ).toBe(403);
  });

  it('imports both formats through the command-line function, and the demo list once', async () => {
    const service = t.container.services.watchlists;
    const csv = await importWatchlistFile(service, DEMO_WATCHLIST_CSV, 'cli-csv');
    expect(csv).toMatchObject({ format: 'csv', entryCount: 9 });
    const ftm = await importWatchlistFile(service, DEMO_WATCHLIST_FTM, 'cli-ftm');
    expect(ftm).toMatchObject({ format: 'ftm', entryCount: 9 });
    // Lists exist already: the demo list is not imported.
    expect(await importDemoWatchlistIfNone(service)).toBeUndefined();
  });
});

describe('npm run watchlist:import', () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'osint-watchlist-cli-'));
  });
  afterAll(async () => {
    await fs.rm(dataDir, { recursive: true, force: true });
  });
  const cli = (...args: string[]) =>
    run(process.execPath, ['--import', 'tsx', 'server/src/cli/watchlist-import.ts', ...args], {
      env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '' },
      cwd: path.join(import.meta.dirname, '../../..'),
    });

  it('imports a file into DATA_DIR and refuses while the server holds the database', async () => {
    const { stdout } = await cli(DEMO_WATCHLIST_CSV, '--name', 'from-cli');
    expect(stdout).toMatch(
      /9 entries \(simple CSV\): 4 politically exposed, 3 sanctioned, 2 criminal; 0 lines skipped/,
    );
    const lock = acquireDataDirLock(dataDir, 'server');
    try {
      await expect(cli(DEMO_WATCHLIST_FTM)).rejects.toMatchObject({
        stderr: expect.stringMatching(/The server is running on this DATA_DIR .* holds its database/),
      });
    } finally {
      lock.release();
    }
  }, 120_000);
});
