import type { ExtractionFlag, FlagEvidence } from '@osint/contract/data-extractor';
import type {
  ConnectionCandidate,
  ExtractionAnalysis,
  ExtractionAnalyzer,
  FaceSightingInput,
  FlagSet,
  IndexedFaceRef,
  NameAssessment,
  ResultAnalysis,
  ResultInput,
  WikipediaSummary,
} from './analysis-types.ts';
import {
  describingSentence,
  findEvidence,
  namesSubject,
  subjectOf,
  type EvidenceSubject,
} from './evidence.ts';
import type { LlmClient } from './llm-client.ts';
import {
  candidatesForPicture,
  namedAroundPicture,
  peopleOfResult,
  sameNameVariant,
  type PagePerson,
  CASELESS_LETTER,
  CJK_LETTER,
  type KnownNames,
  type NameCandidate,
  textsOfResult,
} from './names.ts';
import { nameTokens } from './name-match.ts';

/** What the analysis needs of the watch-lists (services/watchlist.service.ts). */
export interface WatchlistMatcher {
  match(name: string): Promise<
    {
      entry: {
        listName: string;
        entityId: string;
        name: string;
        topics: string[];
        sourceUrl: string | null;
        politician: boolean;
        sanctions: boolean;
        criminal: boolean;
      };
      score: number;
    }[]
  >;
  /** The lists' names written in a text in scripts without capital letters. */
  namesIn?(text: string): Promise<NameCandidate[]>;
}

export interface WikipediaLookup {
  lookup(name: string): Promise<WikipediaSummary | null>;
}

export interface AnalyzerOptions {
  watchlists?: WatchlistMatcher | undefined;
  wikipedia?: WikipediaLookup | undefined;
  llm?: LlmClient | undefined;
  /** Most connections kept per result. */
  maxConnections?: number;
}

const FLAGS: ExtractionFlag[] = ['politician', 'sanctions', 'criminal'];

function flagsOf(evidence: FlagEvidence[]): FlagSet {
  return {
    politician: evidence.some((e) => e.flag === 'politician'),
    sanctions: evidence.some((e) => e.flag === 'sanctions'),
    criminal: evidence.some((e) => e.flag === 'criminal'),
  };
}

/** One name over all results: its variants merged. */
interface NameCluster {
  name: string;
  tokens: string[];
  support: number;
}

/**
 * The text analysis of an extraction: who each result's picture shows (names.ts), what the pages and
 * the watch-lists say about them (evidence.ts, watch-lists), who they are seen with, the Wikipedia
 * summary of the best name, and (when configured) an LLM's second opinion.
 */
export class TextAnalyzer implements ExtractionAnalyzer {
  constructor(private readonly options: AnalyzerOptions = {}) {}

  async analyze(results: ResultInput[], sightings: FaceSightingInput[]): Promise<ExtractionAnalysis> {
    // A run looks up the same names, and reads the same captions of pages and sightings, many times.
    const watchlistEvidence = cachedByText((name) => this.watchlistEvidence(name));
    const namesIn = cachedByText((text) => this.namesIn(text));

    // 1. The people of every page, and the candidates for each picture.
    const known = await Promise.all(results.map((result) => knownNamesOf(result, namesIn)));
    const pages = results.map((result, index) => {
      const people = peopleOfResult(result, known[index]);
      let candidates = candidatesForPicture(people);
      // Nobody named around the picture: a page about exactly one person is about the person shown, unless
      // its caption places that person elsewhere in the photo.
      if (candidates.length === 0 && people.length === 1 && !people[0]!.elsewhere) candidates = people;
      return { result, people, candidates };
    });

    // 2. Names over all results: variants merged; each result gives its candidates a share of one vote.
    const clusters: NameCluster[] = [];
    const clusterOf = (person: { tokens: string[] }) =>
      clusters.find((c) => sameNameVariant(c.tokens, person.tokens));
    for (const { candidates } of pages) {
      const top = candidates[0]?.score ?? 0;
      for (const candidate of candidates) {
        const share = candidate.score / top;
        const cluster = clusterOf(candidate);
        if (cluster) {
          cluster.support += share;
          if (candidate.tokens.length > cluster.tokens.length) {
            cluster.name = candidate.name;
            cluster.tokens = candidate.tokens;
          }
        } else clusters.push({ name: candidate.name, tokens: candidate.tokens, support: share });
      }
    }
    clusters.sort((a, b) => b.support - a.support);
    const best = clusters[0];

    // 3. Each result's name: the name most results support when this page gives it, else its own best.
    const analyses: ResultAnalysis[] = [];
    const chosenClusters = new Set<NameCluster>();
    for (const { result, people, candidates } of pages) {
      let chosen: PagePerson | undefined;
      if (best) chosen = candidates.find((c) => sameNameVariant(c.tokens, best.tokens));
      chosen ??= candidates[0];
      if (this.options.llm && candidates.length > 1) {
        const pick = await this.options.llm
          .choosePerson(
            result,
            candidates.map((c) => c.name),
          )
          .catch(() => null);
        const picked = pick && candidates.find((c) => c.name === pick);
        if (picked) chosen = picked;
      }
      const chosenCluster = chosen ? clusterOf(chosen) : undefined;
      if (chosenCluster) chosenClusters.add(chosenCluster);
      const personName = chosenCluster?.name ?? chosen?.name ?? '';
      const alternativeNames = dedupeNames(
        candidates.filter((c) => c !== chosen).map((c) => clusterOf(c)?.name ?? c.name),
      ).filter((n) => n !== personName);

      const others = people.filter((p) => p !== chosen);
      const texts = pageTexts(result);
      let evidence: FlagEvidence[] = [];
      let personDesc: string;
      if (personName) {
        const subject = subjectWithVariants(personName, chosen);
        evidence = findEvidence(
          texts,
          subject,
          others.map((o) => subjectOf(o.name)),
        );
        evidence.push(...(await watchlistEvidence(personName)));
        if (this.options.llm) {
          const extra = await this.options.llm.flagsFor(result, personName).catch(() => []);
          // The model may quote a sentence of the page about someone else: a flag on this person needs a
          // quotation that names them.
          evidence.push(
            ...extra.filter((e) => namesSubject(e.text, subject) && !evidence.some((x) => x.flag === e.flag)),
          );
        }
        personDesc =
          describingSentence([result.image.caption, result.image.nearbyText, result.page.text], subject) ||
          result.image.caption ||
          result.image.alt;
      } else {
        personDesc = result.image.caption || result.image.alt;
      }

      // 4. Seen with: the other people named on the page, and other faces of the page named elsewhere.
      const connections: ConnectionCandidate[] = [];
      const addConnection = async (
        name: string,
        aboutUrl: string | null,
        face: IndexedFaceRef | null,
        found: FlagEvidence[],
      ) => {
        const tokens = nameTokens(name);
        if (tokens.length < 2 || (personName && sameNameVariant(tokens, nameTokens(personName)))) return;
        const existing = connections.find((c) => sameNameVariant(nameTokens(c.name), tokens));
        const all = [...found, ...(await watchlistEvidence(name))];
        if (existing) {
          existing.face ??= face;
          for (const e of all)
            if (!existing.evidence.some((x) => x.flag === e.flag && x.text === e.text))
              existing.evidence.push(e);
          Object.assign(existing, flagsOf(existing.evidence));
          return;
        }
        connections.push({ name, face, aboutUrl, evidence: all, ...flagsOf(all) });
      };
      const maxConnections = this.options.maxConnections ?? 20;
      // On a teaser, the page's text is about other stories: only the people named around the image.
      const coNamed = result.teaser ? others.filter(namedAroundPicture) : others;
      for (const other of coNamed.slice(0, maxConnections)) {
        if (chosen && sameNameVariant(other.tokens, chosen.tokens)) continue;
        const subject = subjectWithVariants(other.name, other);
        const otherSubjects = people.filter((p) => p !== other).map((p) => subjectOf(p.name));
        // Named in a teaser's borrowed caption only: about them reads the article that captions the photo.
        const aboutUrl =
          result.image.captionUrl && onlyInCaption(other) ? result.image.captionUrl : result.page.url;
        await addConnection(other.name, aboutUrl, null, findEvidence(texts, subject, otherSubjects));
      }
      for (const sighting of sightings.filter((s) => s.resultKey === result.key)) {
        const asResult: ResultInput = {
          key: `${result.key}:sighting`,
          page: sighting.page,
          image: sighting.image,
          similarity: 0,
          crawledAt: result.crawledAt,
        };
        const sightingPeople = peopleOfResult(asResult, await knownNamesOf(asResult, namesIn));
        const named = candidatesForPicture(sightingPeople)[0];
        if (!named) continue;
        const subject = subjectWithVariants(named.name, named);
        const found = findEvidence(
          pageTexts(asResult),
          subject,
          sightingPeople.filter((p) => p !== named).map((p) => subjectOf(p.name)),
        );
        await addConnection(named.name, sighting.page.url, sighting.face, found);
      }

      analyses.push({
        key: result.key,
        personName,
        personDesc: personDesc.slice(0, 500),
        alternativeNames: alternativeNames.slice(0, 8),
        evidence,
        connections: connections.slice(0, maxConnections),
        ...flagsOf(evidence),
      });
    }

    const bestName = best ? best.name : null;
    let wikipedia: WikipediaSummary | null = null;
    if (bestName && this.options.wikipedia) {
      wikipedia = await this.options.wikipedia.lookup(bestName).catch(() => null);
    }
    return { results: analyses, bestName, namesFound: chosenClusters.size, wikipedia };
  }

  /**
   * A result renamed by hand: the page's evidence about the new name (the other people named on the page
   * are not taken for it) and its watch-list matches, as the analysis finds them for a name it chose.
   */
  async assessName(result: ResultInput, personName: string): Promise<NameAssessment> {
    const people = peopleOfResult(result, await knownNamesOf(result, (text) => this.namesIn(text)));
    const tokens = nameTokens(personName);
    const named = people.find((p) => sameNameVariant(p.tokens, tokens));
    const subject = subjectWithVariants(personName, named);
    const others = people.filter((p) => p !== named && !sameNameVariant(p.tokens, tokens));
    const evidence = findEvidence(
      pageTexts(result),
      subject,
      others.map((o) => subjectOf(o.name)),
    );
    evidence.push(...(await this.watchlistEvidence(personName)));
    const personDesc = describingSentence(
      [result.image.caption, result.image.nearbyText, result.page.text],
      subject,
    );
    return { evidence, personDesc: personDesc.slice(0, 500), ...flagsOf(evidence) };
  }

  /** The watch-lists' names written in `text` in a caseless or CJK script (none without lists or on failure). */
  private async namesIn(text: string): Promise<NameCandidate[]> {
    const watchlists = this.options.watchlists;
    if (!watchlists?.namesIn) return [];
    return watchlists.namesIn(text).catch(() => []);
  }

  private async watchlistEvidence(name: string): Promise<FlagEvidence[]> {
    if (!this.options.watchlists) return [];
    let matches;
    try {
      matches = await this.options.watchlists.match(name);
    } catch {
      return [];
    }
    const evidence: FlagEvidence[] = [];
    for (const { entry, score } of matches.slice(0, 5)) {
      for (const flag of FLAGS) {
        if (!entry[flag]) continue;
        const topics = entry.topics.length ? ` (${entry.topics.join(', ')})` : '';
        evidence.push({
          flag,
          source: 'watchlist',
          text: `${entry.name} — ${entry.listName}${topics}`,
          url: entry.sourceUrl,
          listName: entry.listName,
          entryId: entry.entityId,
          score,
        });
      }
    }
    return evidence;
  }
}

/** Named in a result's caption and nowhere else on its page. */
function onlyInCaption(person: PagePerson): boolean {
  return person.sources.has('caption') && person.sources.size === 1;
}

function pageTexts(result: ResultInput): { text: string; url: string | null }[] {
  return [
    { text: result.image.caption, url: result.image.captionUrl ?? result.page.url },
    { text: result.image.nearbyText, url: result.page.url },
    { text: result.page.text, url: result.page.url },
  ];
}

function subjectWithVariants(name: string, person: PagePerson | undefined): EvidenceSubject {
  const subject = subjectOf(name);
  if (person && person.tokens.length > subject.tokens.length) return { name, tokens: person.tokens };
  return subject;
}

function dedupeNames(names: string[]): string[] {
  const kept: string[] = [];
  for (const name of names) {
    if (!kept.some((k) => sameNameVariant(nameTokens(k), nameTokens(name)))) kept.push(name);
  }
  return kept;
}

/** `lookUp` once per distinct text (the same promise for each later call with that text). */
function cachedByText<T>(lookUp: (text: string) => Promise<T>): (text: string) => Promise<T> {
  const cache = new Map<string, Promise<T>>();
  return (text) => {
    let cached = cache.get(text);
    if (!cached) {
      cached = lookUp(text);
      cache.set(text, cached);
    }
    return cached;
  };
}

/**
 * Names in a result's texts that capitalisation cannot find: the watch-lists' names written in caseless
 * scripts (Arabic, Hebrew), so that a caption naming a listed person in Arabic is checked as one in Latin.
 */
async function knownNamesOf(
  result: ResultInput,
  namesIn: (text: string) => Promise<NameCandidate[]>,
): Promise<KnownNames> {
  const known: KnownNames = {};
  for (const [text, source] of textsOfResult(result)) {
    if (!CASELESS_LETTER.test(text) && !CJK_LETTER.test(text)) continue;
    const names = await namesIn(text);
    if (names.length > 0) known[source] = names;
  }
  return known;
}
