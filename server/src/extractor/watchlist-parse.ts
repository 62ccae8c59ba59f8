import { nameKeys } from './name-match.ts';
import type { WatchlistFormat } from '@osint/contract/watchlist';

/**
 * Readers of the two OpenSanctions export formats, streaming (a full export is hundreds of MB):
 *
 * - FollowTheMoney JSON lines (`entities.ftm.json`): one entity per line,
 *   `{id, schema, properties: {name, alias, topics, country, birthDate, sourceUrl, …}, datasets}`.
 *   Flags come from `properties.topics`.
 * - The simple CSV (`targets.simple.csv`), columns id, schema, name, aliases, birth_date, countries,
 *   addresses, identifiers, sanctions, phones, emails, dataset, first_seen, last_seen, last_change;
 *   multi-valued cells are joined with ";" (CSV-quoted inside). It has no topics column, so the flags
 *   are derived (deriveCsvFlags below): a non-empty `sanctions` cell → sanctions; a dataset title
 *   naming politically exposed persons, politicians, parliaments or ministers → politician; a dataset
 *   title naming wanted persons, fugitives or crime → criminal. The variant `targets.simple-02.csv`
 *   has a `topics` column; when a file has one, the topics decide as for FollowTheMoney.
 *
 * The format is detected from the content (the first line), never from the file name. Lines or rows
 * that cannot be read are counted and skipped; only a file whose first line is neither format is
 * refused (UnrecognisedWatchlistError → 400).
 */

export interface WatchlistEntryInput {
  entityId: string;
  schema: string;
  name: string;
  aliases: string[];
  topics: string[];
  countries: string[];
  birthDates: string[];
  sourceUrl: string | null;
  politician: boolean;
  sanctions: boolean;
  criminal: boolean;
  nameKeys: string[];
}

export class UnrecognisedWatchlistError extends Error {
  constructor(message = 'unrecognised watch-list format') {
    super(message);
    this.name = 'UnrecognisedWatchlistError';
  }
}

export interface WatchlistReader {
  format: WatchlistFormat;
  entries: AsyncGenerator<WatchlistEntryInput>;
  /** Lines or rows skipped so far (bad JSON, a row of the wrong width, no id or no name). */
  skipped(): number;
}

/** Schemas kept: people and the bodies a person may be named with; vessels, addresses… are ignored. */
const KEPT_SCHEMAS = new Set(['Person', 'Organization', 'Company', 'LegalEntity', 'PublicBody']);

/** Longest line or row read; a longer one is skipped. */
const MAX_RECORD_CHARS = 8 * 1024 * 1024;

export function flagsOfTopics(topics: string[]): {
  politician: boolean;
  sanctions: boolean;
  criminal: boolean;
} {
  const lower = topics.map((t) => t.toLowerCase().trim());
  return {
    sanctions: lower.some((t) => t.startsWith('sanction')),
    politician: lower.some((t) => t.startsWith('role.pep')),
    criminal: lower.some((t) => t.startsWith('crime') || t === 'wanted'),
  };
}

const PEP_DATASET =
  /politically exposed|\bpeps?\b|politician|parliament|legislat|minister|members of|every politician/i;
const CRIME_DATASET = /wanted|fugitive|\bcrime|criminal/i;

/** The simple CSV's flags when it has no topics column (see the header of this file). */
export function deriveCsvFlags(row: { sanctions: string; dataset: string }): {
  politician: boolean;
  sanctions: boolean;
  criminal: boolean;
} {
  return {
    sanctions: row.sanctions.trim() !== '',
    politician: PEP_DATASET.test(row.dataset),
    criminal: CRIME_DATASET.test(row.dataset),
  };
}

/** Text of a byte (or string) stream, UTF-8, BOM dropped. */
async function* textOf(source: AsyncIterable<Uint8Array | string>): AsyncGenerator<string> {
  const decoder = new TextDecoder('utf-8', { ignoreBOM: false });
  for await (const chunk of source) {
    const text = typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
    if (text) yield text;
  }
  const tail = decoder.decode();
  if (tail) yield tail;
}

/** Opens a watch-list file: detects its format from the first line, then reads entries on demand. */
export async function openWatchlist(source: AsyncIterable<Uint8Array | string>): Promise<WatchlistReader> {
  const chunks = textOf(source)[Symbol.asyncIterator]();
  let head = '';
  // Read until the first non-empty line is complete (or the input ends).
  for (;;) {
    const trimmed = head.replace(/^[\s\uFEFF]+/, '');
    if (trimmed && trimmed.includes('\n')) break;
    if (head.length > MAX_RECORD_CHARS) throw new UnrecognisedWatchlistError('first line too long');
    const next = await chunks.next();
    if (next.done) break;
    head += next.value;
  }
  head = head.replace(/^[\s\uFEFF]+/, '');
  const firstLine = head.split(/\r?\n/, 1)[0] ?? '';
  const rest = (async function* () {
    yield head;
    for (let next = await chunks.next(); !next.done; next = await chunks.next()) yield next.value;
  })();

  if (firstLine.startsWith('{')) {
    const entity = parseJson(firstLine);
    if (!isFtmEntity(entity)) throw new UnrecognisedWatchlistError();
    const counter = { skipped: 0 };
    return { format: 'ftm', entries: readFtm(rest, counter), skipped: () => counter.skipped };
  }
  const header = parseCsvLine(firstLine, ',').map((h) => h.trim().toLowerCase());
  if (header.includes('id') && header.includes('name') && header.includes('schema')) {
    const counter = { skipped: 0 };
    return { format: 'csv', entries: readCsv(rest, header, counter), skipped: () => counter.skipped };
  }
  throw new UnrecognisedWatchlistError();
}

function parseJson(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch {
    return undefined;
  }
}

interface FtmEntity {
  id: string;
  schema: string;
  caption?: unknown;
  properties: Record<string, unknown>;
}

function isFtmEntity(value: unknown): value is FtmEntity {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return false;
  const v = value as Record<string, unknown>;
  return (
    typeof v.id === 'string' &&
    typeof v.schema === 'string' &&
    !!v.properties &&
    typeof v.properties === 'object' &&
    !Array.isArray(v.properties)
  );
}

function strings(value: unknown): string[] {
  if (!Array.isArray(value)) return [];
  return value
    .filter((v): v is string => typeof v === 'string')
    .map((v) => v.trim())
    .filter(Boolean);
}

const unique = (values: string[]) => [...new Set(values)];

async function* linesOf(text: AsyncIterable<string>, counter: { skipped: number }): AsyncGenerator<string> {
  let buffer = '';
  let oversized = false;
  for await (const chunk of text) {
    buffer += chunk;
    let newline: number;
    while ((newline = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + 1);
      if (oversized) {
        oversized = false; // the end of a skipped line
        continue;
      }
      yield line;
    }
    if (buffer.length > MAX_RECORD_CHARS) {
      if (!oversized) counter.skipped++;
      oversized = true;
      buffer = '';
    }
  }
  if (buffer && !oversized) yield buffer;
}

/** One FollowTheMoney entity as an entry; undefined for a schema we do not keep, null when unusable. */
export function entryOfFtm(value: unknown): WatchlistEntryInput | undefined | null {
  if (!isFtmEntity(value)) return null;
  if (!KEPT_SCHEMAS.has(value.schema)) return undefined;
  const p = value.properties;
  const names = strings(p.name);
  const caption = typeof value.caption === 'string' ? value.caption.trim() : '';
  const name = names[0] ?? caption;
  if (!name) return null;
  const aliases = unique([...names.slice(1), ...strings(p.alias), ...strings(p.previousName)]).filter(
    (a) => a !== name,
  );
  const topics = unique(strings(p.topics));
  return {
    entityId: value.id.slice(0, 200),
    schema: value.schema,
    name,
    aliases,
    topics,
    countries: unique([
      ...strings(p.country),
      ...strings(p.nationality),
      ...strings(p.citizenship),
      ...strings(p.jurisdiction),
    ]),
    birthDates: unique(strings(p.birthDate)),
    sourceUrl: strings(p.sourceUrl)[0] ?? null,
    ...flagsOfTopics(topics),
    nameKeys: nameKeys([name, ...aliases]),
  };
}

async function* readFtm(
  text: AsyncIterable<string>,
  counter: { skipped: number },
): AsyncGenerator<WatchlistEntryInput> {
  for await (const raw of linesOf(text, counter)) {
    const line = raw.trim();
    if (!line) continue;
    const entry = entryOfFtm(parseJson(line));
    if (entry === null) counter.skipped++;
    else if (entry) yield entry;
  }
}

/** Splits one line of CSV (no newlines inside) with the given delimiter, honouring quotes. */
export function parseCsvLine(line: string, delimiter: string): string[] {
  const fields: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quoted) {
      if (c === '"') {
        if (line[i + 1] === '"') {
          field += '"';
          i++;
        } else quoted = false;
      } else field += c;
    } else if (c === '"' && field === '') quoted = true;
    else if (c === delimiter) {
      fields.push(field);
      field = '';
    } else if (c !== '\r') field += c;
  }
  fields.push(field);
  return fields;
}

/** CSV records (RFC 4180: quoted fields may hold commas, quotes and newlines), streaming. */
export async function* csvRecords(
  text: AsyncIterable<string>,
  counter: { skipped: number },
): AsyncGenerator<string[]> {
  let fields: string[] = [];
  let field = '';
  let quoted = false;
  let afterQuote = false;
  let size = 0;
  let oversized = false;
  for await (const chunk of text) {
    for (let i = 0; i < chunk.length; i++) {
      const c = chunk[i]!;
      if (quoted) {
        if (c === '"') {
          quoted = false;
          afterQuote = true;
        } else if (!oversized) field += c;
        size++;
        continue;
      }
      if (afterQuote && c === '"') {
        // A doubled quote inside a quoted field.
        if (!oversized) field += '"';
        quoted = true;
        afterQuote = false;
        continue;
      }
      afterQuote = false;
      if (c === '"' && field === '') {
        quoted = true;
      } else if (c === ',') {
        fields.push(field);
        field = '';
      } else if (c === '\n') {
        fields.push(field);
        if (oversized) counter.skipped++;
        else yield fields;
        fields = [];
        field = '';
        size = 0;
        oversized = false;
      } else if (c !== '\r') {
        if (!oversized) field += c;
      }
      size++;
      if (size > MAX_RECORD_CHARS && !oversized) {
        oversized = true;
        field = '';
        fields = [];
      }
    }
  }
  if (field !== '' || fields.length > 0) {
    fields.push(field);
    if (oversized) counter.skipped++;
    else yield fields;
  }
}

/** A multi-valued cell of the simple CSV: values joined with ";", CSV-quoted. */
export function splitMulti(cell: string | undefined): string[] {
  if (!cell || !cell.trim()) return [];
  return parseCsvLine(cell, ';')
    .map((v) => v.trim())
    .filter(Boolean);
}

async function* readCsv(
  text: AsyncIterable<string>,
  header: string[],
  counter: { skipped: number },
): AsyncGenerator<WatchlistEntryInput> {
  const column = (name: string) => header.indexOf(name);
  const idx = {
    id: column('id'),
    schema: column('schema'),
    name: column('name'),
    aliases: column('aliases'),
    birthDate: column('birth_date'),
    countries: column('countries'),
    sanctions: column('sanctions') >= 0 ? column('sanctions') : column('sanction'),
    topics: column('topics'),
    dataset: column('dataset'),
  };
  const cell = (row: string[], i: number) => (i >= 0 ? (row[i] ?? '').trim() : '');
  let first = true;
  for await (const row of csvRecords(text, counter)) {
    if (first) {
      first = false; // the header
      continue;
    }
    if (row.length === 1 && row[0]!.trim() === '') continue; // blank line
    if (row.length !== header.length) {
      counter.skipped++;
      continue;
    }
    const entityId = cell(row, idx.id);
    const name = cell(row, idx.name);
    const schema = cell(row, idx.schema) || 'Person';
    if (!entityId || !name) {
      counter.skipped++;
      continue;
    }
    if (!KEPT_SCHEMAS.has(schema)) continue;
    const aliases = unique(splitMulti(cell(row, idx.aliases))).filter((a) => a !== name);
    const topics = idx.topics >= 0 ? unique(splitMulti(cell(row, idx.topics))) : [];
    const flags =
      idx.topics >= 0
        ? flagsOfTopics(topics)
        : deriveCsvFlags({ sanctions: cell(row, idx.sanctions), dataset: cell(row, idx.dataset) });
    yield {
      entityId: entityId.slice(0, 200),
      schema,
      name,
      aliases,
      topics,
      countries: unique(splitMulti(cell(row, idx.countries))),
      birthDates: unique(splitMulti(cell(row, idx.birthDate))),
      sourceUrl: null,
      ...flags,
      nameKeys: nameKeys([name, ...aliases]),
    };
  }
}
