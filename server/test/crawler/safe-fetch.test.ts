import net from 'node:net';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FetchError, retryAfterMs, safeFetch, type SafeFetchOptions } from '../../src/crawler/safe-fetch.ts';
import { TestServer, html, redirect, status, text } from './test-server.ts';

let server: TestServer;
let base: SafeFetchOptions;
let drippingRedirectClosed = false;

async function failure(promise: Promise<unknown>): Promise<FetchError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof FetchError) return error;
    throw error;
  }
  throw new Error('expected a FetchError');
}

beforeAll(async () => {
  server = await TestServer.start({
    '/page': html('<title>ok</title>'),
    '/json': text('{}', 'application/json'),
    '/redirect-1': redirect('/redirect-2', 301),
    '/redirect-2': redirect('/page', 307),
    '/loop': redirect('/loop'),
    '/slow-headers': (_req, res) => {
      setTimeout(() => res.writeHead(200, { 'content-type': 'text/html' }).end('late'), 2_000);
    },
    '/slow-body': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      const timer = setInterval(() => res.write('.'), 50);
      res.on('close', () => clearInterval(timer));
    },
    '/big-declared': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html', 'content-length': 5000 }).end('x'.repeat(5000));
    },
    '/big-chunked': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      for (let i = 0; i < 10; i++) res.write('x'.repeat(1000));
      res.end();
    },
    '/gzip-bomb': (_req, res) => {
      const body = zlib.gzipSync(Buffer.alloc(1024 * 1024, 0x20));
      res.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'gzip' }).end(body);
    },
    '/gzip-ok': (_req, res) => {
      res
        .writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'gzip' })
        .end(zlib.gzipSync('<p>compressed</p>'));
    },
    '/gone': status(410),
    // A redirect whose body never ends: the fetch must not keep downloading it.
    '/redirect-dripping': (_req, res) => {
      res.writeHead(302, { location: '/page', 'content-type': 'text/html' });
      const timer = setInterval(() => res.write('x'.repeat(1024)), 20);
      res.on('close', () => {
        clearInterval(timer);
        drippingRedirectClosed = true;
      });
    },
  });
  base = {
    userAgent: 'OSINTPlatformBot/1.0 (+http://localhost/about-us)',
    allowPrivate: true,
    allowedPorts: [server.port],
    connectTimeoutMs: 1_000,
    totalTimeoutMs: 3_000,
    maxBytes: 4_096,
    maxRedirects: 5,
  };
});

afterAll(() => server.close());

describe('safeFetch: limits', () => {
  it('fetches a page, sends our user agent and reports the address it connected to', async () => {
    const result = await safeFetch(server.url('/page'), base);
    expect(result.status).toBe(200);
    expect(result.mimeType).toBe('text/html');
    expect(result.body.toString()).toBe('<title>ok</title>');
    expect(result.remoteAddress).toBe('127.0.0.1');
    expect(server.hits('/page').at(-1)?.userAgent).toBe(base.userAgent);
  });

  it('follows redirects up to the limit', async () => {
    const result = await safeFetch(server.url('/redirect-1'), base);
    expect(result.url).toBe(server.url('/page'));
    expect(result.redirects).toEqual([server.url('/redirect-1'), server.url('/redirect-2')]);
    expect((await failure(safeFetch(server.url('/loop'), base))).code).toBe('too-many-redirects');
    expect((await failure(safeFetch(server.url('/redirect-1'), { ...base, maxRedirects: 1 }))).code).toBe(
      'too-many-redirects',
    );
  });

  it('closes a redirect at once, however long its body would run', async () => {
    const result = await safeFetch(server.url('/redirect-dripping'), base);
    expect(result.url).toBe(server.url('/page'));
    for (const deadline = Date.now() + 2_000; !drippingRedirectClosed && Date.now() < deadline;)
      await new Promise((resolve) => setTimeout(resolve, 20));
    expect(drippingRedirectClosed).toBe(true);
  });

  it('times out on slow headers and on a body that never ends', async () => {
    const started = Date.now();
    const slow = await failure(safeFetch(server.url('/slow-headers'), { ...base, totalTimeoutMs: 300 }));
    expect(slow.code).toBe('timeout');
    expect(slow.retryable).toBe(true);
    const drip = await failure(
      safeFetch(server.url('/slow-body'), { ...base, totalTimeoutMs: 300, maxBytes: 1e6 }),
    );
    expect(drip.code).toBe('timeout');
    expect(Date.now() - started).toBeLessThan(1_500);
  });

  it('counts a name lookup and a policy check that never answer against the total timeout', async () => {
    const started = Date.now();
    const neverResolves = () => new Promise<never>(() => {});
    const lookup = await failure(
      safeFetch('http://hanging-dns.test/', { ...base, totalTimeoutMs: 300, resolveHost: neverResolves }),
    );
    expect(lookup.code).toBe('timeout');
    const policy = await failure(
      safeFetch(server.url('/page'), { ...base, totalTimeoutMs: 300, allowUrl: neverResolves }),
    );
    expect(policy.code).toBe('timeout');
    expect(Date.now() - started).toBeLessThan(1_500);
  });

  it('times out a connection that never completes its handshake', async () => {
    // Accepts TCP but never answers the TLS ClientHello: the connect phase cannot finish.
    const silent = net.createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as net.AddressInfo).port;
    try {
      const error = await failure(
        safeFetch(`https://127.0.0.1:${port}/`, { ...base, allowedPorts: [port], connectTimeoutMs: 200 }),
      );
      expect(error.code).toBe('timeout');
      expect(error.message).toContain('connect timeout');
    } finally {
      silent.close();
    }
  });

  it('refuses bodies over the size limit, declared or not, compressed or not', async () => {
    for (const path of ['/big-declared', '/big-chunked', '/gzip-bomb']) {
      expect((await failure(safeFetch(server.url(path), base))).code).toBe('too-large');
    }
    expect((await safeFetch(server.url('/gzip-ok'), base)).body.toString()).toBe('<p>compressed</p>');
    const truncated = await safeFetch(server.url('/big-chunked'), { ...base, truncate: true });
    expect(truncated.body.length).toBe(4_096);
  });

  it('checks the content type before reading the body', async () => {
    const error = await failure(
      safeFetch(server.url('/json'), { ...base, acceptContentType: (type) => type === 'text/html' }),
    );
    expect(error.code).toBe('content-type');
    expect(error.retryable).toBe(false);
  });

  it('returns error statuses without reading their body', async () => {
    const result = await safeFetch(server.url('/gone'), base);
    expect(result.status).toBe(410);
    expect(result.body.length).toBe(0);
  });

  it('parses Retry-After in seconds and as a date', () => {
    expect(retryAfterMs('3')).toBe(3000);
    expect(retryAfterMs(new Date(10_000).toUTCString(), 4_000)).toBe(6_000);
    expect(retryAfterMs('soon')).toBeUndefined();
  });
});

describe('safeFetch: SSRF guard', () => {
  const guarded = () => ({ ...base, allowPrivate: false });

  it.each([
    'http://127.0.0.1:PORT/page',
    'http://localhost:PORT/page',
    'http://[::1]:PORT/page',
    'http://[::ffff:127.0.0.1]:PORT/page',
    'http://2130706433:PORT/page',
    'http://0x7f.0.0.1:PORT/page',
    'http://0.0.0.0:PORT/page',
    'http://169.254.169.254/latest/meta-data/',
    'http://[fd00:ec2::254]/latest/meta-data/',
    'http://10.0.0.1/',
    'http://100.64.1.1/',
    'http://[fe80::1]/',
  ])('refuses %s before connecting', async (template) => {
    const url = template.replace('PORT', String(server.port));
    const before = server.requests.length;
    const error = await failure(safeFetch(url, guarded()));
    expect(error.code).toBe('blocked');
    expect(error.retryable).toBe(false);
    expect(server.requests.length).toBe(before);
  });

  it('refuses hostnames whose DNS answer is private, even partly', async () => {
    const resolveHost = async () => [
      { address: '93.184.216.34', family: 4 },
      { address: '10.0.0.7', family: 4 },
    ];
    const error = await failure(safeFetch('http://mixed.test/', { ...guarded(), resolveHost }));
    expect(error.code).toBe('blocked');
    expect(error.message).toContain('10.0.0.7');
  });

  it('allowPrivate lifts the refusal (local testing only)', async () => {
    expect((await safeFetch(server.url('/page', 'localhost'), { ...base, allowPrivate: true })).status).toBe(
      200,
    );
    expect((await safeFetch(server.url('/page'), { ...base, allowPrivate: true })).status).toBe(200);
  });

  it('checks every redirect hop: a public-looking start cannot bounce to a private address', async () => {
    // 127.0.0.1 is trusted so the test server is reachable with the guard on; every other private
    // address stays refused. The refused targets are never contacted.
    const resolveHost = async (hostname: string) =>
      hostname === 'internal.test'
        ? [{ address: '10.0.0.5', family: 4 }]
        : [{ address: '127.0.0.1', family: 4 }];
    const options = { ...guarded(), trustedAddresses: ['127.0.0.1'], resolveHost };
    server.route('/to-metadata', redirect('http://169.254.169.254/latest/meta-data/'));
    server.route('/to-other-loopback', redirect(`http://127.0.0.2:${server.port}/page`));
    server.route('/to-internal-name', redirect('http://internal.test/admin'));
    server.route('/to-mapped', redirect(`http://[::ffff:7f00:2]:${server.port}/page`));
    expect((await safeFetch(server.url('/page', 'public.test'), options)).status).toBe(200);
    for (const path of ['/to-metadata', '/to-other-loopback', '/to-internal-name', '/to-mapped']) {
      const error = await failure(safeFetch(server.url(path, 'public.test'), options));
      expect(error.code, path).toBe('blocked');
    }
  });

  it('connects to the address it checked: no second DNS lookup (no rebinding window)', async () => {
    const answers = ['127.0.0.1', '10.9.9.9'];
    let lookups = 0;
    const resolveHost = async () => [{ address: answers[Math.min(lookups++, 1)]!, family: 4 }];
    const result = await safeFetch(server.url('/page', 'rebind.test'), {
      ...guarded(),
      trustedAddresses: ['127.0.0.1'],
      resolveHost,
    });
    expect(result.remoteAddress).toBe('127.0.0.1');
    expect(lookups).toBe(1);
  });

  it('allows only http(s) and ports 80/443 plus configured ones', async () => {
    expect((await failure(safeFetch('ftp://example.com/x', base))).code).toBe('scheme');
    expect((await failure(safeFetch('file:///etc/passwd', base))).code).toBe('scheme');
    expect((await failure(safeFetch(server.url('/page'), { ...base, allowedPorts: [] }))).code).toBe('port');
    expect((await failure(safeFetch('http://example.com:22/', base))).code).toBe('port');
  });
});
