import type { WikipediaSummary } from './analysis-types.ts';
import { findEvidence, subjectOf } from './evidence.ts';
import { isSameName } from './name-match.ts';

/**
 * A client of the Wikipedia REST API: `GET {base}/api/rest_v1/page/summary/{title}` (type, title,
 * description, extract, content_urls.desktop.page), and when the title is not a page, the MediaWiki
 * search `GET {base}/w/rest.php/v1/search/page?q=…&limit=5` ({pages: [{key, title, description}]}).
 * A page is accepted only when its title is the name (name-match.ts) and it describes a person (a
 * standard page whose description or extract reads like a biography). Every failure (timeout, HTTP
 * error, malformed answer) is null: Wikipedia never fails an extraction.
 */

export const DEFAULT_WIKIPEDIA_URL = 'https://en.wikipedia.org';

export const WIKIPEDIA_USER_AGENT =
  'OSINT-Platform-DataExtractor/1.0 (face search for verified organizations; contact via the operator)';

interface SummaryResponse {
  type?: string;
  title?: string;
  titles?: { normalized?: string };
  description?: string;
  extract?: string;
  content_urls?: { desktop?: { page?: string } };
}

interface SearchResponse {
  pages?: { key?: string; title?: string; description?: string | null }[];
}

/** Words of a description or first sentence that say the page is about a person. */
const PERSON_HINT =
  /\b(?:born|politician|businessman|businesswoman|entrepreneur|mayor|minister|senator|president|actor|actress|singer|musician|writer|author|journalist|lawyer|judge|footballer|player|athlete|criminal|fugitive|oligarch|banker|economist|scientist|activist|official|diplomat|officer|executive|director|founder|teacher|(?:he|she) (?:is|was))\b|\(\s*(?:born\s*)?\d{1,2}? ?\w* ?\d{4}\s*[–-]/i;
const NOT_PERSON = /\b(?:disambiguation|may refer to|list of|family name|surname|given name)\b/i;

export interface WikipediaClientOptions {
  /** https://en.wikipedia.org, or a server speaking the same API; undefined disables the client. */
  baseUrl: string | undefined;
  timeoutMs?: number;
}

export class WikipediaClient {
  private base: string | undefined;
  private readonly timeoutMs: number;

  constructor(options: WikipediaClientOptions) {
    this.setBaseUrl(options.baseUrl);
    this.timeoutMs = options.timeoutMs ?? 4000;
  }

  /** Points the client at another server ("off" or undefined disables it). */
  setBaseUrl(baseUrl: string | undefined): void {
    const base = baseUrl?.trim();
    this.base = base && base.toLowerCase() !== 'off' ? base.replace(/\/+$/, '') : undefined;
  }

  get enabled(): boolean {
    return this.base !== undefined;
  }

  async lookup(name: string): Promise<WikipediaSummary | null> {
    if (!this.base || !name.trim()) return null;
    try {
      const direct = await this.summary(name);
      if (direct && this.accepts(direct, name)) return this.toSummary(direct, name);
      const search = await this.getJson<SearchResponse>(
        `/w/rest.php/v1/search/page?q=${encodeURIComponent(name)}&limit=5`,
      );
      for (const page of search?.pages ?? []) {
        if (!page.title || !isSameName(page.title.replace(/\s*\(.*\)\s*$/, ''), name)) continue;
        const summary = await this.summary(page.key ?? page.title);
        if (summary && this.accepts(summary, name)) return this.toSummary(summary, name);
      }
      return null;
    } catch {
      return null;
    }
  }

  private summary(title: string): Promise<SummaryResponse | null> {
    const key = encodeURIComponent(title.trim().replace(/ /g, '_'));
    return this.getJson<SummaryResponse>(`/api/rest_v1/page/summary/${key}`);
  }

  private accepts(summary: SummaryResponse, name: string): boolean {
    const title = summary.titles?.normalized ?? summary.title ?? '';
    if (summary.type !== 'standard' || !title) return false;
    // "Helena Marsh (politician)" is Helena Marsh.
    if (!isSameName(title.replace(/\s*\(.*\)\s*$/, ''), name)) return false;
    const about = `${summary.description ?? ''} ${(summary.extract ?? '').slice(0, 300)}`;
    return !NOT_PERSON.test(about) && PERSON_HINT.test(about);
  }

  private toSummary(summary: SummaryResponse, name: string): WikipediaSummary {
    const title = (summary.titles?.normalized ?? summary.title ?? name).replace(/\s*\(.*\)\s*$/, '');
    const extract = (summary.extract ?? '').trim();
    const description = [summary.description?.trim(), extract].filter(Boolean).join(' — ');
    const url =
      summary.content_urls?.desktop?.page ??
      `${this.base}/wiki/${encodeURIComponent((summary.title ?? title).replace(/ /g, '_'))}`;
    const subject = subjectOf(title);
    const fromExtract = findEvidence([{ text: extract, url }], subject, []);
    // The short description ("sanctioned Bulgarian businessman") names nobody: it is read as a sentence
    // about the person, and quoted as the article writes it (the sentence read is not on the page).
    const shortDescription = summary.description?.trim() ?? '';
    const fromDescription = shortDescription
      ? findEvidence([{ text: `${title} is a ${shortDescription}.`, url }], subject, []).map((e) => ({
          ...e,
          text: shortDescription,
        }))
      : [];
    // The flags are kept with the sentences that raised them: every flag shown can say why.
    const evidence = [...fromExtract, ...fromDescription];
    return {
      name: title,
      personDescription: description.slice(0, 1000),
      url,
      politician: evidence.some((e) => e.flag === 'politician'),
      sanctions: evidence.some((e) => e.flag === 'sanctions'),
      criminal: evidence.some((e) => e.flag === 'criminal'),
      evidence,
    };
  }

  private async getJson<T>(path: string): Promise<T | null> {
    const response = await fetch(`${this.base}${path}`, {
      headers: {
        accept: 'application/json',
        'user-agent': WIKIPEDIA_USER_AGENT,
        'api-user-agent': WIKIPEDIA_USER_AGENT,
      },
      signal: AbortSignal.timeout(this.timeoutMs),
      redirect: 'follow',
    });
    if (!response.ok) {
      await response.body?.cancel();
      return null;
    }
    const body = (await response.json()) as unknown;
    return body && typeof body === 'object' ? (body as T) : null;
  }
}
