import {
  WATCHLIST_MESSAGES,
  WATCHLIST_NAME_PATTERN,
  type WatchlistImportResult,
  type WatchlistSummary,
} from '@osint/contract/watchlist';
import {
  bestNameScore,
  CJK_LETTERS,
  CJK_WORD,
  foldText,
  NAME_MATCH_THRESHOLD,
  nameKeys,
  nameTokens,
} from '../extractor/name-match.ts';
import { CASELESS_LETTER, type NameCandidate } from '../extractor/names.ts';
import { openWatchlist, UnrecognisedWatchlistError } from '../extractor/watchlist-parse.ts';
import { badRequest, notFound } from '../lib/http-error.ts';
import type { AuditRepository } from '../repositories/audit.repository.ts';
import type { WatchlistEntryRow, WatchlistRepository } from '../repositories/watchlist.repository.ts';

export interface WatchlistMatch {
  entry: WatchlistEntryRow;
  /** Name-matching score of the best of the entry's names (0–1). */
  score: number;
  /** The entry's name that matched best. */
  matchedName: string;
}

const NAME_REGEX = new RegExp(WATCHLIST_NAME_PATTERN);
/** Most words of a text looked up as names in caseless scripts (a long page's first ones). */
const MAX_CASELESS_WORDS = 400;
/** Most CJK letters of a text looked up (a long page's first ones), and keys per lookup. */
const MAX_CJK_LETTERS = 3_000;
const CJK_KEYS_PER_LOOKUP = 2_000;
/** A space between two CJK letters. */
const SPACE_IN_CJK = new RegExp(`(?<=[${CJK_LETTERS}]) (?=[${CJK_LETTERS}])`, 'gu');

/** Imports, lists and deletes watch-lists; matches names against every imported list. */
export class WatchlistService {
  constructor(
    private readonly watchlists: WatchlistRepository,
    private readonly audit: AuditRepository,
  ) {}

  /** Reads a file (FollowTheMoney JSON lines or the simple CSV) and replaces the list of that name. */
  async importFile(request: {
    listName: string;
    source: AsyncIterable<Uint8Array | string>;
    importedBy: number | null;
    ip?: string | null;
  }): Promise<WatchlistImportResult> {
    const listName = request.listName.trim();
    if (!NAME_REGEX.test(listName)) throw badRequest(WATCHLIST_MESSAGES.invalidName);
    let reader;
    try {
      reader = await openWatchlist(request.source);
    } catch (error) {
      if (error instanceof UnrecognisedWatchlistError)
        throw badRequest(WATCHLIST_MESSAGES.unrecognisedFormat);
      throw error;
    }
    const stored = await this.watchlists.replaceList(
      { name: listName, format: reader.format, importedBy: request.importedBy },
      reader.entries,
      reader.skipped,
    );
    if (!stored) throw badRequest(WATCHLIST_MESSAGES.emptyList);
    await this.audit.insert({
      actorUserId: request.importedBy,
      organizationId: null,
      action: 'admin.watchlist.imported',
      target: `watchlist:${listName}`,
      detail: {
        format: stored.format,
        entryCount: stored.entryCount,
        skippedCount: stored.skippedCount,
      },
      ip: request.ip ?? null,
    });
    return {
      listName: stored.listName,
      format: stored.format,
      entryCount: stored.entryCount,
      politicianCount: stored.politicianCount,
      sanctionsCount: stored.sanctionsCount,
      criminalCount: stored.criminalCount,
      skippedCount: stored.skippedCount,
      importedAt: stored.importedAt.toISOString(),
    };
  }

  async list(): Promise<{ lists: WatchlistSummary[] }> {
    const rows = await this.watchlists.listAll();
    return {
      lists: rows.map((row) => ({
        listName: row.listName,
        format: row.format,
        entryCount: row.entryCount,
        politicianCount: row.politicianCount,
        sanctionsCount: row.sanctionsCount,
        criminalCount: row.criminalCount,
        importedAt: row.importedAt.toISOString(),
        importedBy: row.importedBy,
      })),
    };
  }

  async delete(listName: string, actor: { id: number; ip?: string | null }): Promise<void> {
    if (!(await this.watchlists.deleteList(listName))) throw notFound(WATCHLIST_MESSAGES.notFound);
    await this.audit.insert({
      actorUserId: actor.id,
      organizationId: null,
      action: 'admin.watchlist.deleted',
      target: `watchlist:${listName}`,
      ip: actor.ip ?? null,
    });
  }

  hasAnyList(): Promise<boolean> {
    return this.watchlists.hasAnyList();
  }

  /**
   * Person entries of every list whose name or an alias matches the person name `name` (score ≥
   * threshold, compared as watch-lists are: an initial stands for no given name), best first. Companies
   * and other bodies are never matched to a person ("John Smith Holdings" is not John Smith).
   */
  async match(name: string, threshold = NAME_MATCH_THRESHOLD): Promise<WatchlistMatch[]> {
    const candidates = await this.watchlists.findPersonCandidates(nameKeys([name]));
    const matches: WatchlistMatch[] = [];
    for (const entry of candidates) {
      let best = 0;
      let matchedName = entry.name;
      for (const candidate of [entry.name, ...entry.aliases]) {
        const score = bestNameScore(name, [candidate], 'watchlist');
        if (score > best) {
          best = score;
          matchedName = candidate;
        }
      }
      if (best >= threshold) matches.push({ entry, score: Math.round(best * 1000) / 1000, matchedName });
    }
    return matches.sort((a, b) => b.score - a.score);
  }

  /**
   * Names of the lists' people written in `text` in scripts without capital letters, where the name finder,
   * which goes by capitals, finds none. Names the lists do not hold are not found this way.
   * - Arabic, Hebrew: a Person entry's name or alias in that script whose words stand together, in order,
   *   in the text (diacritics ignored).
   * - Chinese, Japanese, Korean: a name or alias in those scripts of three letters or more found inside a
   *   run of letters (Chinese and Japanese put no spaces between words; a Korean name is one word and takes
   *   particles: "김정은이"). Two-letter names are left out: as a stretch of a longer run they are too
   *   often part of another word.
   */
  async namesIn(text: string): Promise<NameCandidate[]> {
    const folded = foldText(text);
    const found = new Map<string, NameCandidate>();
    const add = (name: string, tokens: string[]) => {
      const key = tokens.join(' ');
      if (!found.has(key)) found.set(key, { name, tokens, index: Math.max(0, text.indexOf(name)) });
    };
    for (const { name, tokens } of await this.caselessNamesIn(folded)) add(name, tokens);
    for (const { name, tokens } of await this.cjkNamesIn(folded)) add(name, tokens);
    return [...found.values()];
  }

  private async caselessNamesIn(folded: string): Promise<{ name: string; tokens: string[] }[]> {
    const words = folded
      .split(' ')
      .filter((word) => CASELESS_LETTER.test(word))
      .slice(0, MAX_CASELESS_WORDS);
    if (words.length === 0) return [];
    const written = ` ${words.join(' ')} `;
    // A name written whole shares its words with the text: the words are the keys (not their prefixes).
    const keys = [...new Set(nameTokens(words.join(' ')).filter((token) => token.length >= 2))];
    const names = [];
    for (const entry of await this.watchlists.findPersonCandidates(keys)) {
      for (const name of [entry.name, ...entry.aliases]) {
        const tokens = nameTokens(name);
        if (tokens.length < 2 || !tokens.every((token) => CASELESS_LETTER.test(token))) continue;
        if (written.includes(` ${tokens.join(' ')} `)) names.push({ name, tokens });
      }
    }
    return names;
  }

  private async cjkNamesIn(folded: string): Promise<{ name: string; tokens: string[] }[]> {
    // Runs of CJK letters, a space between two of them dropped ("安倍 晋三" is "安倍晋三").
    const runs = folded
      .replace(SPACE_IN_CJK, '')
      .split(' ')
      .filter((word) => CJK_WORD.test(word));
    if (runs.length === 0) return [];
    // A name's lookup keys are its words, a CJK name of several words written whole too, and their first
    // four letters (nameKeys); names shorter than three letters are not looked for: every stretch of three
    // or four letters of the text, the four-letter ones as prefixes too.
    const keys = new Set<string>();
    let letters = 0;
    for (const run of runs) {
      const chars = [...run];
      for (let i = 0; i < chars.length && letters < MAX_CJK_LETTERS; i++, letters++) {
        for (let length = 3; length <= 4 && i + length <= chars.length; length++) {
          const stretch = chars.slice(i, i + length).join('');
          keys.add(stretch);
          if (length === 4) keys.add(`${stretch}*`);
        }
      }
    }
    const names = [];
    const all = [...keys];
    for (let i = 0; i < all.length; i += CJK_KEYS_PER_LOOKUP) {
      for (const entry of await this.watchlists.findPersonCandidates(all.slice(i, i + CJK_KEYS_PER_LOOKUP))) {
        for (const name of [entry.name, ...entry.aliases]) {
          const tokens = nameTokens(name);
          const written = tokens.join('');
          if (tokens.length === 0 || !tokens.every((token) => CJK_WORD.test(token))) continue;
          if ([...written].length < 3) continue;
          if (runs.some((run) => run.includes(written))) names.push({ name, tokens });
        }
      }
    }
    return names;
  }
}
