import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The real server process (`node --import tsx server/src/main.ts`, as `npm start` runs it): its log is
// JSON lines, one per event, each request's lines carrying the request's id, which the answer repeats in
// X-Request-Id; secrets in URLs never reach the log.

const root = path.resolve(import.meta.dirname, '../../..');

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

interface LogLine {
  level: number;
  time: number;
  msg: string;
  reqId?: string;
  req?: { method: string; url: string };
  res?: { statusCode: number };
  responseTime?: number;
}

describe('metrics: structured logs', () => {
  let server: ChildProcess;
  let dataDir: string;
  let base: string;
  let output = '';

  const logLines = (): LogLine[] =>
    output
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as LogLine);

  beforeAll(async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'osint-logs-'));
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    server = spawn(process.execPath, ['--import', 'tsx', 'server/src/main.ts'], {
      cwd: root,
      env: {
        ...process.env,
        PORT: String(port),
        HOST: '127.0.0.1',
        DATA_DIR: dataDir,
        DEMO_DATA: '0',
        WORKERS: '0',
        LOG_LEVEL: 'info',
        PUBLIC_URL: base,
        WEB_DIST_DIR: path.join(dataDir, 'no-web'),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    server.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    server.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const deadline = Date.now() + 90_000;
    for (;;) {
      const ok = await fetch(`${base}/api/health`).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) break;
      if (Date.now() > deadline || server.exitCode !== null)
        throw new Error(`server did not start:\n${output}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }, 120_000);

  afterAll(async () => {
    if (server.exitCode === null) {
      const exited = new Promise((resolve) => server.once('exit', resolve));
      server.kill('SIGTERM');
      await exited;
    }
    await fs.rm(dataDir, { recursive: true, force: true });
  });

  it('logs each request as JSON lines that share the request id the answer names in X-Request-Id', async () => {
    const answer = await fetch(`${base}/api/user/user-info`);
    expect(answer.status).toBe(401);
    const id = answer.headers.get('x-request-id');
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    const own = await fetch(`${base}/api/health`, { headers: { 'x-request-id': 'proxy-id.42' } });
    expect(own.headers.get('x-request-id')).toBe('proxy-id.42');
    // A hostile id is not taken over: it would forge or break log lines.
    const hostile = await fetch(`${base}/api/health`, {
      headers: { 'x-request-id': 'a"}\u0009{"level":60' },
    });
    expect(hostile.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);

    await new Promise((r) => setTimeout(r, 300));
    const lines = logLines();
    const ofRequest = lines.filter((line) => line.reqId === id);
    expect(ofRequest.map((line) => line.msg)).toEqual(['incoming request', 'request completed']);
    expect(ofRequest[0]!.req).toMatchObject({ method: 'GET', url: '/api/user/user-info' });
    expect(ofRequest[1]!.res).toEqual({ statusCode: 401 });
    expect(typeof ofRequest[1]!.responseTime).toBe('number');
    expect(lines.filter((line) => line.reqId === 'proxy-id.42')).toHaveLength(2);
    for (const line of lines) {
      expect(typeof line.level).toBe('number');
      expect(typeof line.time).toBe('number');
      expect(typeof line.msg).toBe('string');
    }
  });

  it('writes every log line as JSON: nothing else on the log but the start-up banner', async () => {
    const other = output
      .split('\n')
      .filter((line) => line.trim() !== '' && !line.startsWith('{'))
      .filter((line) => !/^\s+(First start|OSINT Platform is running|\S.*\/ )/.test(line));
    expect(other).toEqual([]);
    expect(logLines().length).toBeGreaterThan(4);
  });

  it('never writes the e-mail verification hash (API call or page) or a token of a URL to the log', async () => {
    const secret = 'f00dfeedf00dfeedf00dfeedf00dfeed';
    const validate = await fetch(`${base}/api/user/validate/${secret}`, {
      method: 'POST',
      headers: { origin: base },
    });
    expect(validate.status).toBeGreaterThanOrEqual(400);
    await fetch(`${base}/reset-password?token=${secret}`);
    // The page the confirmation mail links to carries the hash in its path.
    await fetch(`${base}/verify-email/${secret}`);
    await new Promise((r) => setTimeout(r, 300));
    expect(output).not.toContain(secret);
    expect(logLines().some((line) => line.req?.url === '/api/user/validate/[redacted]')).toBe(true);
    expect(logLines().some((line) => line.req?.url === '/reset-password?token=[redacted]')).toBe(true);
    expect(logLines().some((line) => line.req?.url === '/verify-email/[redacted]')).toBe(true);
  });
});
