import type { ExtractionFlag, FlagEvidence } from '@osint/contract/data-extractor';
import type { ResultInput } from './analysis-types.ts';

/**
 * Optional second opinion of a language model, through any OpenAI-compatible server
 * (`POST {LLM_URL}/v1/chat/completions`, JSON answers asked for with response_format json_object). Used
 * only when LLM_URL is set. It may pick the person of a picture among the names the page analysis
 * found, and raise a flag when it quotes a sentence that is really on the page (source 'llm'). Every
 * error, timeout or malformed answer is ignored: the analysis stands without it.
 */

export interface LlmClientOptions {
  url: string;
  model: string;
  apiKey?: string | undefined;
  timeoutMs?: number;
}

const FLAGS: ExtractionFlag[] = ['politician', 'sanctions', 'criminal'];
const MAX_PAGE_CHARS = 6000;

function pageDigest(result: ResultInput): string {
  return [
    `URL: ${result.page.url}`,
    `Title: ${result.page.title}`,
    `Image caption: ${result.image.caption}`,
    `Image alt text: ${result.image.alt}`,
    `Text near the image: ${result.image.nearbyText}`,
    `Page text: ${result.page.text.slice(0, MAX_PAGE_CHARS)}`,
  ].join('\n');
}

const squash = (text: string) => text.replace(/\s+/g, ' ').trim().toLowerCase();

export class LlmClient {
  private readonly endpoint: string;

  constructor(private readonly options: LlmClientOptions) {
    this.endpoint = `${options.url.replace(/\/+$/, '').replace(/\/v1$/, '')}/v1/chat/completions`;
  }

  /** The candidate the model says the picture shows, or null. Only a name of `candidates` is accepted. */
  async choosePerson(result: ResultInput, candidates: string[]): Promise<string | null> {
    const answer = await this.ask(
      'You identify who is shown in a picture on a web page. Answer JSON only: {"name": "<one of the candidates, exactly as written>"} or {"name": null} when the page does not say.',
      `${pageDigest(result)}\n\nCandidates: ${JSON.stringify(candidates)}\nWho is shown in the picture?`,
    );
    const name = answer && typeof answer.name === 'string' ? answer.name : null;
    return name && candidates.includes(name) ? name : null;
  }

  /** Flags the model finds for the person, each with a sentence quoted from the page (checked). */
  async flagsFor(result: ResultInput, personName: string): Promise<FlagEvidence[]> {
    const answer = await this.ask(
      'You read a web page about a person and report only what the page states. Answer JSON only: ' +
        '{"flags": [{"flag": "politician" | "sanctions" | "criminal", "sentence": "<the exact sentence of the page that states it>"}]}. ' +
        'politician: holds or held a public office; sanctions: is under sanctions; criminal: was convicted, arrested, charged or is wanted. ' +
        'Acquittals, dropped charges and lifted sanctions are not flags. Report nothing you cannot quote.',
      `${pageDigest(result)}\n\nPerson: ${personName}`,
    );
    const flags = answer && Array.isArray(answer.flags) ? (answer.flags as unknown[]) : [];
    const page = squash([result.page.text, result.image.caption, result.image.nearbyText].join(' '));
    const evidence: FlagEvidence[] = [];
    for (const item of flags) {
      if (!item || typeof item !== 'object') continue;
      const { flag, sentence } = item as { flag?: unknown; sentence?: unknown };
      if (typeof flag !== 'string' || !FLAGS.includes(flag as ExtractionFlag)) continue;
      if (typeof sentence !== 'string' || sentence.trim().length < 12) continue;
      // The quoted sentence must be on the page: an invented quotation raises nothing.
      if (!page.includes(squash(sentence))) continue;
      evidence.push({
        flag: flag as ExtractionFlag,
        source: 'llm',
        text: sentence.trim().slice(0, 500),
        url: result.page.url,
      });
    }
    return evidence;
  }

  private async ask(system: string, user: string): Promise<Record<string, unknown> | null> {
    try {
      const response = await fetch(this.endpoint, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(this.options.apiKey ? { authorization: `Bearer ${this.options.apiKey}` } : {}),
        },
        body: JSON.stringify({
          model: this.options.model,
          temperature: 0,
          response_format: { type: 'json_object' },
          messages: [
            { role: 'system', content: system },
            { role: 'user', content: user },
          ],
        }),
        signal: AbortSignal.timeout(this.options.timeoutMs ?? 20_000),
      });
      if (!response.ok) {
        await response.body?.cancel();
        return null;
      }
      const body = (await response.json()) as { choices?: { message?: { content?: unknown } }[] };
      const content = body.choices?.[0]?.message?.content;
      if (typeof content !== 'string') return null;
      // Some servers wrap JSON in a code fence.
      const json = content.replace(/^\s*```(?:json)?\s*|\s*```\s*$/g, '');
      const parsed = JSON.parse(json) as unknown;
      return parsed && typeof parsed === 'object' && !Array.isArray(parsed)
        ? (parsed as Record<string, unknown>)
        : null;
    } catch {
      return null;
    }
  }
}
