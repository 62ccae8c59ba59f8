import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ResultInput } from '../../src/extractor/analysis-types.ts';
import { TextAnalyzer } from '../../src/extractor/analyzer.ts';
import { LlmClient } from '../../src/extractor/llm-client.ts';

/** A local server speaking the OpenAI chat-completions protocol; its answers are set per test. */
let server: http.Server;
let url: string;
let reply: (body: { model: string; messages: { role: string; content: string }[] }) => {
  status: number;
  content: string;
};
const seen: {
  auth: string | undefined;
  body: { model: string; response_format?: unknown; messages: { content: string }[] };
}[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString()));
    req.on('end', () => {
      if (req.url !== '/v1/chat/completions' || req.method !== 'POST') return void res.writeHead(404).end();
      const body = JSON.parse(raw) as { model: string; messages: { role: string; content: string }[] };
      seen.push({ auth: req.headers.authorization, body });
      const { status, content } = reply(body);
      res.writeHead(status, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          id: 'x',
          object: 'chat.completion',
          choices: [{ index: 0, message: { role: 'assistant', content } }],
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const result: ResultInput = {
  key: 'r1',
  page: {
    url: 'http://site.test/p',
    title: 'Nina Park opens a harbour café',
    text: 'Nina Park and Leo Grant opened the harbour. Leo Grant was convicted of smuggling in 2019. Nina Park runs a café.',
  },
  image: {
    imageUrl: 'http://site.test/i.jpg',
    alt: '',
    caption: 'Nina Park and Leo Grant at the harbour.',
    nearbyText: '',
  },
  similarity: 0.9,
  crawledAt: new Date('2024-01-01'),
};

/** A model that picks the person with `pick` and quotes Leo Grant's conviction as the flags of anyone. */
const pickAndQuoteGrant = (pick: string) => (body: { messages: { content: string }[] }) =>
  body.messages[0]!.content.startsWith('You identify')
    ? { status: 200, content: pick }
    : {
        status: 200,
        content:
          '{"flags": [{"flag": "criminal", "sentence": "Leo Grant was convicted of smuggling in 2019."}]}',
      };

describe('LLM client', () => {
  it('asks for JSON with the model and key, and accepts only a candidate name', async () => {
    const client = new LlmClient({ url, model: 'test-model', apiKey: 'sk-test' });
    reply = () => ({ status: 200, content: '{"name": "Leo Grant"}' });
    expect(await client.choosePerson(result, ['Nina Park', 'Leo Grant'])).toBe('Leo Grant');
    expect(seen.at(-1)).toMatchObject({
      auth: 'Bearer sk-test',
      body: { model: 'test-model', response_format: { type: 'json_object' } },
    });
    reply = () => ({ status: 200, content: '{"name": "Someone Else"}' });
    expect(await client.choosePerson(result, ['Nina Park', 'Leo Grant'])).toBeNull();
  });

  it('keeps flags only with a sentence that is on the page', async () => {
    const client = new LlmClient({ url, model: 'm' });
    reply = () => ({
      status: 200,
      content: JSON.stringify({
        flags: [
          { flag: 'criminal', sentence: 'Leo Grant was convicted of smuggling in 2019.' },
          { flag: 'sanctions', sentence: 'Leo Grant is under sanctions.' },
          { flag: 'wizard', sentence: 'Nina Park runs a café.' },
          { flag: 'politician' },
        ],
      }),
    });
    expect(await client.flagsFor(result, 'Leo Grant')).toEqual([
      {
        flag: 'criminal',
        source: 'llm',
        text: 'Leo Grant was convicted of smuggling in 2019.',
        url: 'http://site.test/p',
      },
    ]);
  });

  it('ignores errors and malformed answers', async () => {
    const client = new LlmClient({ url, model: 'm' });
    for (const answer of [
      { status: 500, content: '{"name": "Leo Grant"}' },
      { status: 200, content: 'I think it is Leo Grant.' },
      { status: 200, content: '["Leo Grant"]' },
    ]) {
      reply = () => answer;
      expect(await client.choosePerson(result, ['Nina Park', 'Leo Grant'])).toBeNull();
      expect(await client.flagsFor(result, 'Leo Grant')).toEqual([]);
    }
    const unreachable = new LlmClient({ url: 'http://127.0.0.1:9', model: 'm', timeoutMs: 500 });
    expect(await unreachable.choosePerson(result, ['Nina Park'])).toBeNull();
  });

  it('refines the analyzer’s choice of name and flags', async () => {
    reply = pickAndQuoteGrant('```json\n{"name": "Leo Grant"}\n```');
    const withLlm = await new TextAnalyzer({ llm: new LlmClient({ url, model: 'm' }) }).analyze([result], []);
    expect(withLlm.results[0]).toMatchObject({ personName: 'Leo Grant', criminal: true });
    const without = await new TextAnalyzer().analyze([result], []);
    expect(without.results[0]!.personName).toBe('Nina Park');
  });

  it('raises no flag on a quotation about someone else', async () => {
    reply = pickAndQuoteGrant('{"name": "Nina Park"}');
    const analysis = await new TextAnalyzer({ llm: new LlmClient({ url, model: 'm' }) }).analyze(
      [result],
      [],
    );
    expect(analysis.results[0]).toMatchObject({ personName: 'Nina Park', criminal: false });
  });
});
