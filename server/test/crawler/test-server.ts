import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A real HTTP server on 127.0.0.1 (random port) for crawler tests. Routes are keyed by
 * `hostname/path` (virtual hosts through the Host header) or by `/path` for any host, and every
 * request is recorded with server-side start/end times so politeness can be asserted.
 */

export interface RecordedRequest {
  hostname: string;
  path: string;
  userAgent: string;
  start: number;
  end: number;
}

export type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void | Promise<void>;

export class TestServer {
  readonly requests: RecordedRequest[] = [];
  /** Highest number of simultaneous requests seen per hostname. */
  readonly maxConcurrent = new Map<string, number>();
  private readonly active = new Map<string, number>();

  private constructor(
    private readonly server: http.Server,
    readonly routes: Map<string, Handler>,
  ) {}

  static async start(routes: Record<string, Handler> = {}): Promise<TestServer> {
    const map = new Map(Object.entries(routes));
    const server = http.createServer();
    const instance = new TestServer(server, map);
    server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => instance.handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return instance;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  /** URL on this server under a virtual hostname (resolve it to 127.0.0.1 in the crawler options). */
  url(path = '/', hostname = '127.0.0.1'): string {
    return `http://${hostname}:${this.port}${path}`;
  }

  route(key: string, handler: Handler): void {
    this.routes.set(key, handler);
  }

  /** Requests for `path` (any host unless given). */
  hits(path: string, hostname?: string): RecordedRequest[] {
    return this.requests.filter((r) => r.path === path && (!hostname || r.hostname === hostname));
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const hostname = (req.headers.host ?? '').replace(/:\d+$/, '');
    const path = req.url ?? '/';
    const record: RecordedRequest = {
      hostname,
      path,
      userAgent: req.headers['user-agent'] ?? '',
      start: Date.now(),
      end: 0,
    };
    this.requests.push(record);
    const active = (this.active.get(hostname) ?? 0) + 1;
    this.active.set(hostname, active);
    this.maxConcurrent.set(hostname, Math.max(this.maxConcurrent.get(hostname) ?? 0, active));
    res.on('close', () => {
      record.end = Date.now();
      this.active.set(hostname, (this.active.get(hostname) ?? 1) - 1);
    });
    const handler = this.routes.get(`${hostname}${path}`) ?? this.routes.get(path);
    if (!handler) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    Promise.resolve(handler(req, res)).catch((error: unknown) => {
      res.destroy(error instanceof Error ? error : new Error(String(error)));
    });
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

export const html =
  (body: string, headers: Record<string, string> = {}): Handler =>
  (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', ...headers }).end(body);
  };

export const text =
  (body: string, contentType = 'text/plain'): Handler =>
  (_req, res) => {
    res.writeHead(200, { 'content-type': contentType }).end(body);
  };

export const bytes =
  (body: Buffer, contentType: string): Handler =>
  (_req, res) => {
    res.writeHead(200, { 'content-type': contentType, 'content-length': body.length }).end(body);
  };

export const redirect =
  (location: string, status = 302): Handler =>
  (_req, res) => {
    res.writeHead(status, { location }).end();
  };

export const status =
  (code: number, headers: Record<string, string> = {}): Handler =>
  (_req, res) => {
    res.writeHead(code, { 'content-type': 'text/plain', ...headers }).end(String(code));
  };

/** Answers with `failures` first (in order), then with `then`. */
export function sequence(failures: Handler[], then: Handler): Handler {
  let calls = 0;
  return (req, res) => (failures[calls++] ?? then)(req, res);
}

/** A resolver that sends the given hostnames (and anything else) to 127.0.0.1. */
export function resolveToLoopback(): (
  hostname: string,
) => Promise<Array<{ address: string; family: number }>> {
  return async () => [{ address: '127.0.0.1', family: 4 }];
}

export function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><title>${title}</title></head><body>${body}</body></html>`;
}
