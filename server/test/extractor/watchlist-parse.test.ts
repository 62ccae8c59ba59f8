import { describe, expect, it } from 'vitest';
import {
  csvRecords,
  deriveCsvFlags,
  flagsOfTopics,
  openWatchlist,
  splitMulti,
  UnrecognisedWatchlistError,
  type WatchlistEntryInput,
} from '../../src/extractor/watchlist-parse.ts';

/** The text in chunks of `size` characters, as a stream delivers it. */
async function* chunked(text: string, size: number): AsyncGenerator<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

async function readAll(text: string, size = 7) {
  const reader = await openWatchlist(chunked(text, size));
  const entries: WatchlistEntryInput[] = [];
  for await (const entry of reader.entries) entries.push(entry);
  return { format: reader.format, entries, skipped: reader.skipped() };
}

describe('topics to flags', () => {
  it('maps sanction*, role.pep*, crime* and wanted', () => {
    expect(flagsOfTopics(['sanction.linked'])).toEqual({
      sanctions: true,
      politician: false,
      criminal: false,
    });
    expect(flagsOfTopics(['role.pep.natl'])).toEqual({ sanctions: false, politician: true, criminal: false });
    expect(flagsOfTopics(['crime.fraud'])).toMatchObject({ criminal: true });
    expect(flagsOfTopics(['wanted'])).toMatchObject({ criminal: true });
    expect(flagsOfTopics(['role.rca', 'poi', 'debarment'])).toEqual({
      sanctions: false,
      politician: false,
      criminal: false,
    });
  });

  it('derives the simple CSV flags from the sanctions and dataset columns', () => {
    expect(deriveCsvFlags({ sanctions: 'OFAC - SDN', dataset: 'US OFAC SDN' })).toMatchObject({
      sanctions: true,
    });
    expect(deriveCsvFlags({ sanctions: '', dataset: 'Every Politician' })).toEqual({
      sanctions: false,
      politician: true,
      criminal: false,
    });
    expect(deriveCsvFlags({ sanctions: '', dataset: 'Interpol Red Notices;FBI Most Wanted' })).toMatchObject({
      criminal: true,
    });
    expect(deriveCsvFlags({ sanctions: '', dataset: 'Company registry' })).toEqual({
      sanctions: false,
      politician: false,
      criminal: false,
    });
  });
});

describe('FollowTheMoney JSON lines', () => {
  it('reads entities across chunk boundaries, skips bad lines and ignores other schemas', async () => {
    const text = [
      JSON.stringify({
        id: 'p1',
        schema: 'Person',
        caption: 'Zoë Ødegaard',
        properties: {
          name: ['Zoë Ødegaard', 'Zoe Odegaard'],
          alias: ['Z. Odegaard'],
          topics: ['sanction', 'role.pep'],
          nationality: ['no'],
          birthDate: ['1980-02-03'],
          sourceUrl: ['https://example.org/p1'],
        },
        datasets: ['x'],
      }),
      '{"id": "p2", "schema": "Person"',
      JSON.stringify({ id: 'v1', schema: 'Vessel', properties: { name: ['Sea Star'] } }),
      JSON.stringify({ id: 'c1', schema: 'Company', properties: { name: ['Acme Ltd'], topics: ['crime'] } }),
      '',
    ].join('\r\n');
    const { format, entries, skipped } = await readAll(text, 5);
    expect(format).toBe('ftm');
    expect(skipped).toBe(1);
    expect(entries.map((e) => e.entityId)).toEqual(['p1', 'c1']);
    expect(entries[0]).toMatchObject({
      name: 'Zoë Ødegaard',
      aliases: ['Zoe Odegaard', 'Z. Odegaard'],
      countries: ['no'],
      birthDates: ['1980-02-03'],
      sourceUrl: 'https://example.org/p1',
      sanctions: true,
      politician: true,
      criminal: false,
    });
    expect(entries[0]!.nameKeys).toEqual(expect.arrayContaining(['zoe', 'odegaard', 'odeg*']));
  });
});

describe('simple CSV', () => {
  it('reads quoted cells with commas, quotes and newlines, and multi-valued cells', async () => {
    const text =
      '\uFEFF"id","schema","name","aliases","birth_date","countries","addresses","identifiers","sanctions","phones","emails","dataset","first_seen","last_seen","last_change"\n' +
      '"e1","Person","Anna ""Nan"" Berg","Anna Berg;""Berg, Anna""","1970","se;no","Main St 1\nStockholm","","EU - Asset freeze","","","EU FSF","","",""\n' +
      '"e2","Person","Ravi Menon","","","in","","","","","","Every Politician","","",""\n' +
      '"e3","Vessel","Sea Star","","","","","","","","","","","",""\n' +
      '"e4","Person","","","","","","","","","","","","",""\n' +
      '"e5","Person","too short"\n';
    const { format, entries, skipped } = await readAll(text, 3);
    expect(format).toBe('csv');
    expect(skipped).toBe(2);
    expect(entries).toHaveLength(2);
    expect(entries[0]).toMatchObject({
      entityId: 'e1',
      name: 'Anna "Nan" Berg',
      aliases: ['Anna Berg', 'Berg, Anna'],
      countries: ['se', 'no'],
      sanctions: true,
      politician: false,
      sourceUrl: null,
    });
    expect(entries[1]).toMatchObject({ entityId: 'e2', politician: true, sanctions: false });
  });

  it('uses a topics column when the file has one (simple-02)', async () => {
    const text = 'id,schema,name,aliases,topics,sanction,dataset\nx,Person,Li Wei,,crime;wanted,,Other\n';
    const { entries } = await readAll(text);
    expect(entries[0]).toMatchObject({ criminal: true, sanctions: false, topics: ['crime', 'wanted'] });
  });

  it('splits multi-valued cells like the exporter joins them', () => {
    expect(splitMulti('a;"b;c";d')).toEqual(['a', 'b;c', 'd']);
    expect(splitMulti('')).toEqual([]);
  });

  it('streams records one at a time', async () => {
    const counter = { skipped: 0 };
    const records: string[][] = [];
    for await (const r of csvRecords(
      (async function* () {
        yield 'a,"b\n';
        yield 'c",d\ne,f';
      })(),
      counter,
    ))
      records.push(r);
    expect(records).toEqual([
      ['a', 'b\nc', 'd'],
      ['e', 'f'],
    ]);
  });
});

describe('format detection', () => {
  it('refuses a file that is neither format', async () => {
    for (const junk of ['hello\nworld', '', '   \n\n', '{"not": "an entity"}\n', 'name,age\nx,1\n']) {
      await expect(openWatchlist(chunked(junk, 4))).rejects.toBeInstanceOf(UnrecognisedWatchlistError);
    }
  });
});
