import type { ApiErrorBody } from '@osint/contract/api-types';
import type { Violation } from '@osint/contract/validation';

/** A failed API call: the HTTP status and the server's error body when it sent one. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly violations: Violation[] = [],
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** What to tell the user of a failed call: the server's own message for a refusal (4xx), else `fallback`. */
export function errorText(error: unknown, fallback: string): string {
  return error instanceof ApiError && error.status < 500 ? error.message : fallback;
}

type UnauthorizedListener = () => void;
let onUnauthorized: UnauthorizedListener | undefined;

/** The session layer registers here to sign the user out when any call answers 401. */
export function setUnauthorizedListener(listener: UnauthorizedListener | undefined): void {
  onUnauthorized = listener;
}

interface RequestOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  body?: unknown;
  query?: Record<string, string | number | boolean | undefined>;
  signal?: AbortSignal;
  /** A 401 is an expected answer (e.g. "who am I?"), not a lost session. */
  expectUnauthorized?: boolean;
}

function buildUrl(path: string, query: RequestOptions['query']): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query ?? {}))
    if (value !== undefined) params.set(key, String(value));
  const search = params.toString();
  return `/api${path}${search ? `?${search}` : ''}`;
}

async function send(path: string, options: RequestOptions): Promise<Response> {
  const response = await fetch(buildUrl(path, options.query), {
    method: options.method ?? 'GET',
    credentials: 'same-origin',
    headers: options.body !== undefined ? { 'content-type': 'application/json' } : {},
    body: options.body !== undefined ? JSON.stringify(options.body) : null,
    signal: options.signal ?? null,
  });
  if (response.ok) return response;
  let body: Partial<ApiErrorBody> = {};
  try {
    body = (await response.json()) as Partial<ApiErrorBody>;
  } catch {
    // Not JSON (a proxy error page, say): the status alone has to do.
  }
  if (response.status === 401 && !options.expectUnauthorized) onUnauthorized?.();
  throw new ApiError(response.status, body.message ?? response.statusText, body.violations ?? []);
}

/** Calls the API and returns its JSON answer. */
export async function api<T>(path: string, options: RequestOptions = {}): Promise<T> {
  const response = await send(path, options);
  const text = await response.text();
  return (text ? JSON.parse(text) : undefined) as T;
}

/** Calls the API for a file; the name comes from Content-Disposition, else the fallback. */
export async function apiFile(path: string, fallbackName: string, options: RequestOptions = {}) {
  const response = await send(path, options);
  const disposition = response.headers.get('content-disposition') ?? '';
  // The whole name (filename*, any script) before its ASCII stand-in (filename).
  const encoded = /filename\*=UTF-8''([^;]+)/i.exec(disposition)?.[1];
  const plain = /filename="?([^";]+)"?/i.exec(disposition)?.[1];
  const name = encoded ? decodeURIComponent(encoded) : plain;
  return { blob: await response.blob(), fileName: name ?? fallbackName };
}

/** Field messages of a 400 answer, keyed by field name. */
export function violationsByField(error: unknown): Record<string, string> {
  if (!(error instanceof ApiError)) return {};
  return Object.fromEntries(error.violations.map((v) => [v.field, v.message]));
}
