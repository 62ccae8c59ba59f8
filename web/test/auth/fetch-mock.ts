import { vi } from 'vitest';

export interface RecordedCall {
  url: string;
  method: string;
  body: unknown;
}

type Answer = { status: number; body?: unknown } | Error;

/**
 * Replaces fetch for one test: each call is recorded and answered by `answer` (a status and JSON body,
 * or an Error to simulate a network failure).
 */
export function mockFetch(answer: (call: RecordedCall) => Answer) {
  const calls: RecordedCall[] = [];
  const spy = vi.spyOn(globalThis, 'fetch').mockImplementation(async (input, init) => {
    const call = {
      url: String(input),
      method: init?.method ?? 'GET',
      body: typeof init?.body === 'string' ? (JSON.parse(init.body) as unknown) : undefined,
    };
    calls.push(call);
    const result = answer(call);
    if (result instanceof Error) throw result;
    // A 204 (or 205, 304) has no body at all: Response refuses even an empty one.
    const noBody = [204, 205, 304].includes(result.status);
    return new Response(noBody ? null : result.body === undefined ? '' : JSON.stringify(result.body), {
      status: result.status,
      headers: { 'content-type': 'application/json' },
    });
  });
  return { calls, spy };
}
