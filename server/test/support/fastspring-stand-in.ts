import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { decryptSecurePayload, webhookSignature } from '../../src/billing/fastspring-crypto.ts';

/**
 * A local server that plays FastSpring for tests:
 * - it holds the store's RSA public key and decrypts Store Builder secure payloads the way FastSpring
 *   does (`POST /sessions` with `{payload, key}`, or `accept()` in-process);
 * - it serves a small Store Builder look-alike script (`GET /sbl/fastspring-builder.js`) whose
 *   `fastspring.builder.secure(payload, key)` posts the session here, so a browser test can see what the
 *   pricing page pushed;
 * - it delivers webhooks the way FastSpring does: `{"events":[…]}` signed with X-FS-Signature (base64
 *   HMAC-SHA256 of the body with the shared secret), to the product's webhook URL over HTTP;
 * - with `api` credentials it answers the server API's `DELETE /subscriptions/{id}` (HTTP Basic, a
 *   User-Agent required; `billingPeriod=0` deactivates at once, otherwise at the next billing date) with
 *   FastSpring's `{"subscriptions":[{subscription, action, result, error?}]}`, and `GET /subscriptions/{id}`
 *   with the subscription's `state`, for subscriptions made known with `subscriptions.set(id, 'active')`.
 */
export interface FastSpringStandIn {
  url: string;
  /** Sessions received from the Store Builder script, decrypted. */
  sessions: StoreSession[];
  /** How many times the script's `fastspring.builder.checkout()` was called. */
  checkoutsOpened: number;
  accept(payload: string, key: string): StoreSession;
  /** The server API's subscriptions: their state, as cancellations change it. */
  subscriptions: Map<string, 'active' | 'canceled' | 'deactivated'>;
  /** Every `DELETE /subscriptions/{id}` received, answered or not. */
  cancelRequests: { id: string; billingPeriod: string | null; authorized: boolean; userAgent: string }[];
  /** HTTP statuses to answer the next API calls with instead of handling them (a FastSpring outage). */
  failNextApiCalls: number[];
  /** Sends one webhook call; `tamper` changes the body after signing. */
  deliver(
    webhookUrl: string,
    events: WebhookEvent[],
    options?: { secret?: string; tamper?: (body: string) => string; signature?: string | null },
  ): Promise<{ status: number; body: string }>;
  close(): Promise<void>;
}

export interface StoreSession {
  items: { product: string; quantity: number; pricing?: { price?: Record<string, number> } }[];
  tags: Record<string, string>;
}

export interface WebhookEvent {
  id: string;
  type: string;
  live: boolean;
  processed: boolean;
  created: number;
  data: Record<string, unknown>;
}

export function newKeyPair(): { publicKey: string; privateKey: string } {
  return crypto.generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
}

let counter = 0;
export const fsId = (prefix: string) =>
  `${prefix}${Date.now().toString(36)}${(counter++).toString(36)}${crypto.randomBytes(4).toString('hex')}`;

/** Event builders with FastSpring's field names. */
export const fsEvents = {
  orderCompleted(
    session: StoreSession,
    ids: { orderId: string; subscriptionId?: string },
    created = Date.now(),
  ) {
    const total = session.items.reduce(
      (sum, item) => sum + item.quantity * (item.pricing?.price?.USD ?? 0),
      0,
    );
    return event('order.completed', created, {
      order: ids.orderId,
      id: ids.orderId,
      reference: `OSI${ids.orderId.slice(-8).toUpperCase()}`,
      completed: true,
      live: false,
      currency: 'USD',
      total,
      tags: session.tags,
      items: session.items.map((item) => ({
        product: item.product,
        quantity: item.quantity,
        subtotal: item.quantity * (item.pricing?.price?.USD ?? 0),
        ...(ids.subscriptionId && item.product === 'osint-license-subscription'
          ? { subscription: ids.subscriptionId }
          : {}),
      })),
    });
  },
  subscriptionActivated(
    session: StoreSession,
    ids: { orderId: string; subscriptionId: string },
    dates: { begin: number; next: number },
    created = Date.now(),
  ) {
    return event('subscription.activated', created, subscription(session, ids, dates, 'active'));
  },
  chargeCompleted(
    session: StoreSession,
    ids: { orderId: string; subscriptionId: string; chargeOrderId: string },
    dates: { begin: number; next: number },
    created = Date.now(),
  ) {
    const total = session.items.reduce(
      (sum, item) => sum + item.quantity * (item.pricing?.price?.USD ?? 0),
      0,
    );
    return event('subscription.charge.completed', created, {
      status: 'successful',
      total,
      currency: 'USD',
      order: {
        id: ids.chargeOrderId,
        reference: `OSI${ids.chargeOrderId.slice(-8).toUpperCase()}`,
        tags: {},
      },
      subscription: subscription(session, ids, dates, 'active'),
    });
  },
  subscriptionState(
    type: 'subscription.canceled' | 'subscription.deactivated' | 'subscription.payment.overdue',
    session: StoreSession,
    ids: { orderId: string; subscriptionId: string },
    dates: { begin: number; next: number; deactivation?: number },
    created = Date.now(),
  ) {
    const state = { 'subscription.canceled': 'canceled', 'subscription.deactivated': 'deactivated' }[
      type as 'subscription.canceled'
    ];
    return event(type, created, {
      ...subscription(session, ids, dates, state ?? 'overdue'),
      ...(dates.deactivation ? { deactivationDate: dates.deactivation } : {}),
    });
  },
};

function event(type: string, created: number, data: Record<string, unknown>): WebhookEvent {
  return { id: fsId('ev'), type, live: false, processed: false, created, data };
}

function subscription(
  session: StoreSession,
  ids: { orderId: string; subscriptionId: string },
  dates: { begin: number; next: number },
  state: string,
) {
  const seats = session.items.find((item) => item.product === 'additional-seat')?.quantity ?? 0;
  return {
    id: ids.subscriptionId,
    subscription: ids.subscriptionId,
    active: state !== 'deactivated',
    state,
    live: false,
    currency: 'USD',
    product: 'osint-license-subscription',
    quantity: 1,
    price: 100,
    begin: dates.begin,
    next: dates.next,
    intervalUnit: 'month',
    intervalLength: 1,
    initialOrderId: ids.orderId,
    tags: session.tags,
    addons: seats > 0 ? [{ product: 'additional-seat', quantity: seats, price: 50 }] : [],
  };
}

export async function startFastSpringStandIn(options: {
  publicKey?: string;
  secret: string;
  port?: number;
  api?: { username: string; password: string };
}): Promise<FastSpringStandIn> {
  const sessions: StoreSession[] = [];
  const subscriptions: FastSpringStandIn['subscriptions'] = new Map();
  const cancelRequests: FastSpringStandIn['cancelRequests'] = [];
  const failNextApiCalls: number[] = [];
  const subscriptionApi = (request: http.IncomingMessage, response: http.ServerResponse) => {
    const url = new URL(request.url ?? '/', 'http://stand-in');
    const id = decodeURIComponent(url.pathname.slice('/subscriptions/'.length));
    const expected = options.api
      ? `Basic ${Buffer.from(`${options.api.username}:${options.api.password}`).toString('base64')}`
      : null;
    const authorized = expected !== null && request.headers.authorization === expected;
    const billingPeriod = url.searchParams.get('billingPeriod');
    const userAgent = request.headers['user-agent'] ?? '';
    if (request.method === 'DELETE') cancelRequests.push({ id, billingPeriod, authorized, userAgent });
    const failure = failNextApiCalls.shift();
    if (failure) return response.writeHead(failure).end('Service unavailable');
    if (!authorized) return response.writeHead(401).end('Unauthorized');
    if (!userAgent) return response.writeHead(400).end('A User-Agent header is required');
    const state = subscriptions.get(id);
    if (request.method === 'GET') {
      return state
        ? response
            .writeHead(200, { 'content-type': 'application/json' })
            .end(JSON.stringify({ id, subscription: id, active: state !== 'deactivated', state }))
        : response.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"Not found"}');
    }
    const refusal =
      state === undefined
        ? 'Subscription not found'
        : state === 'deactivated'
          ? 'Subscription is already deactivated'
          : null;
    if (state && !refusal) subscriptions.set(id, billingPeriod === '0' ? 'deactivated' : 'canceled');
    const entry = refusal
      ? { subscription: id, action: 'subscription.cancel', result: 'error', error: { subscription: refusal } }
      : { subscription: id, action: 'subscription.cancel', result: 'success' };
    response
      .writeHead(refusal ? 400 : 200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ subscriptions: [entry] }));
  };
  const state = { checkoutsOpened: 0 };
  const accept = (payload: string, key: string): StoreSession => {
    const session = (
      key
        ? decryptSecurePayload(payload, key, requireKey(options.publicKey))
        : typeof payload === 'string'
          ? JSON.parse(payload)
          : payload
    ) as StoreSession;
    sessions.push(session);
    return session;
  };

  const server = http.createServer((request, response) => {
    const cors = {
      'access-control-allow-origin': request.headers.origin ?? '*',
      'access-control-allow-headers': 'content-type',
      'access-control-allow-methods': 'GET, POST',
    };
    if (request.method === 'OPTIONS') {
      response.writeHead(204, cors).end();
      return;
    }
    if (request.method === 'GET' && request.url?.startsWith('/sbl/')) {
      response.writeHead(200, { 'content-type': 'text/javascript', ...cors }).end(storeBuilderScript());
      return;
    }
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      try {
        if (request.method === 'POST' && request.url === '/sessions') {
          const { payload, key } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
            payload: string;
            key: string;
          };
          const session = accept(payload, key);
          response
            .writeHead(200, { 'content-type': 'application/json', ...cors })
            .end(JSON.stringify(session));
        } else if (request.method === 'POST' && request.url === '/checkouts') {
          state.checkoutsOpened++;
          response.writeHead(204, cors).end();
        } else if (
          (request.method === 'DELETE' || request.method === 'GET') &&
          request.url?.startsWith('/subscriptions/')
        ) {
          subscriptionApi(request, response);
        } else if (request.method === 'GET' && request.url === '/sessions') {
          response
            .writeHead(200, { 'content-type': 'application/json', ...cors })
            .end(JSON.stringify(sessions));
        } else {
          response.writeHead(404, cors).end();
        }
      } catch (error) {
        response.writeHead(400, cors).end(String(error));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url,
    sessions,
    subscriptions,
    cancelRequests,
    failNextApiCalls,
    get checkoutsOpened() {
      return state.checkoutsOpened;
    },
    accept,
    async deliver(webhookUrl, events, deliverOptions = {}) {
      const body = JSON.stringify({ events });
      const signature =
        deliverOptions.signature === undefined
          ? webhookSignature(body, deliverOptions.secret ?? options.secret)
          : deliverOptions.signature;
      const sent = deliverOptions.tamper ? deliverOptions.tamper(body) : body;
      const response = await fetch(webhookUrl, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'user-agent': 'FastSpring',
          ...(signature !== null ? { 'x-fs-signature': signature } : {}),
        },
        body: sent,
      });
      return { status: response.status, body: await response.text() };
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function requireKey(key: string | undefined): string {
  if (!key) throw new Error('this stand-in has no public key: the session must be plain JSON');
  return key;
}

/**
 * The Store Builder look-alike: `fastspring.builder.secure(payload, key)` hands the session to the
 * stand-in (as FastSpring's library hands it to FastSpring); `checkout()` opens "the popup" (counted).
 */
function storeBuilderScript(): string {
  return `(() => {
  const tag = document.getElementById('fsc-api');
  const base = new URL(tag.src).origin;
  const post = (path, body) => fetch(base + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  window.fastspring = {
    storefront: tag.getAttribute('data-storefront'),
    accessKey: tag.getAttribute('data-access-key'),
    builder: {
      secure(payload, key) { window.__fsPushed = (window.__fsPushed || 0) + 1; return post('/sessions', { payload, key }); },
      push(session) { window.__fsPushed = (window.__fsPushed || 0) + 1; return post('/sessions', { payload: JSON.stringify(session), key: '' }); },
      checkout() { return post('/checkouts', {}); },
      reset() {},
    },
  };
  const loaded = tag.getAttribute('data-load-callback');
  if (loaded && typeof window[loaded] === 'function') window[loaded]();
})();`;
}
