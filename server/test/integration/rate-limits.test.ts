import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { RATE_LIMITED_MESSAGE } from '@osint/contract/constants';
import { BLOCKED_EMAIL_DOMAINS } from '@osint/contract/email';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { createUser, FIXTURE_PASSWORD, registrationBody } from '../support/fixtures.ts';
import { createMember, createOwner } from '../support/team-fixtures.ts';
import { WORK_RATE_LIMITS } from '../../src/lib/work-rate-limits.ts';

const WINDOW_SECONDS = 15 * 60;

function expectLimited(response: LightMyRequestResponse, windowSeconds = WINDOW_SECONDS) {
  expect(response.statusCode).toBe(429);
  expect(response.json()).toEqual({
    statusCode: 429,
    error: 'Too Many Requests',
    message: RATE_LIMITED_MESSAGE,
  });
  const retryAfter = Number(response.headers['retry-after']);
  expect(Number.isInteger(retryAfter)).toBe(true);
  expect(retryAfter).toBeGreaterThan(0);
  expect(retryAfter).toBeLessThanOrEqual(windowSeconds);
  expect(response.headers['set-cookie']).toBeUndefined();
}

describe('rate limits (RATE_LIMIT on)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({ rateLimit: { enabled: true } });
    await createUser(t, { email: 'victim@limits.example.org' });
    await createUser(t, { email: 'bystander@limits.example.org' });
  });
  afterAll(() => t.close());

  const loginFrom = (ip: string, mail: string, password: string, headers: Record<string, string> = {}) =>
    t.request({
      method: 'POST',
      url: '/api/user/login',
      payload: { mail, password },
      remoteAddress: ip,
      headers,
    });

  it('limits sign-in attempts per account, from any address, with a 429 and Retry-After', async () => {
    const mail = 'victim@limits.example.org';
    for (let i = 0; i < 10; i++) {
      expect((await loginFrom('192.0.2.10', mail, `Guess.Number${i}`)).statusCode).toBe(401);
    }
    // The 11th attempt is refused before the password is even checked, the right one included.
    expectLimited(await loginFrom('192.0.2.10', mail, FIXTURE_PASSWORD));
    expectLimited(await loginFrom('192.0.2.11', ' Victim@Limits.Example.org', FIXTURE_PASSWORD));
    // The address that guessed may still sign in to another account: the limit was the account's.
    expect((await loginFrom('192.0.2.10', 'bystander@limits.example.org', FIXTURE_PASSWORD)).statusCode).toBe(
      200,
    );
  });

  it('counts "search the watched face now" with the user\'s searches, and watch creation with uploads', async () => {
    const { cookie } = await createOwner(t, 'watcher@limits.example.org', { seatLimit: 1 });
    const post = (url: string, payload: object = {}) => t.request({ method: 'POST', url, cookie, payload });
    for (let i = 0; i < 60; i++) expect((await post('/api/watches/999999/search')).statusCode).toBe(404);
    expectLimited(await post('/api/watches/999999/search'), 60);
    // The same budget as POST /api/search.
    expectLimited(await post('/api/search', { faces: ['x'], type: 'OSINT' }), 60);
    const watch = { name: 'Case 1', searchHash: 'no-such-search' };
    for (let i = 0; i < 60; i++) expect((await post('/api/watches', watch)).statusCode).toBe(404);
    expectLimited(await post('/api/watches', watch), 60);
  });

  it("limits an organization's searches together, so its users cannot take the API from other organizations", async () => {
    const { perUser, perOrganization } = WORK_RATE_LIMITS.search;
    const owner = await createOwner(t, 'owner@busy-org.example.org', { seatLimit: 10 });
    const team = [owner];
    for (let i = 1; i <= perOrganization / perUser; i++) {
      team.push(await createMember(t, owner.organizationId, `analyst${i}@busy-org.example.org`, true));
    }
    const outsider = await createOwner(t, 'owner@quiet-org.example.org', { seatLimit: 1 });
    const searchNow = (cookie: string) =>
      t.request({ method: 'POST', url: '/api/watches/999999/search', cookie, payload: {} });
    // Every user but the last spends their own budget: together, the organization's.
    for (const member of team.slice(0, -1)) {
      for (let i = 0; i < perUser; i++) expect((await searchNow(member.cookie)).statusCode).toBe(404);
    }
    // The last user has not searched at all, yet the organization's budget is spent.
    expectLimited(await searchNow(team.at(-1)!.cookie), 60);
    expectLimited(
      await t.request({
        method: 'POST',
        url: '/api/search',
        cookie: team.at(-1)!.cookie,
        payload: { faces: ['x'], type: 'OSINT' },
      }),
      60,
    );
    // Another organization searches as before.
    expect((await searchNow(outsider.cookie)).statusCode).toBe(404);
  });

  it('limits the order calls that render a PDF, together, per user', async () => {
    const { cookie } = await createOwner(t, 'buyer@limits.example.org', { seatLimit: 1 });
    const get = (url: string) => t.request({ method: 'GET', url, cookie });
    for (let i = 0; i < 20; i++)
      expect((await get('/api/order/download-invoice/999999')).statusCode).toBe(404);
    expectLimited(await get('/api/order/download-final-invoice/999999'), 60);
  });

  it('limits card checkout sessions, order cancellations and seat changes per user', async () => {
    const owner = await createOwner(t, 'seats-and-orders@limits.example.org', { seatLimit: 1 });
    const other = await createOwner(t, 'other-owner@limits.example.org', { seatLimit: 1 });
    const post = (cookie: string, url: string, payload: object = {}) =>
      t.request({ method: 'POST', url, cookie, payload });

    // Another organization's id: 404 each time, and counted.
    const session = (cookie: string) =>
      post(cookie, '/api/fastspring/create-session', {
        organizationId: 2_000_000_000,
        startDate: '2030-01-01',
        productSelections: [{ productId: 'osint-license-subscription', quantity: 1 }],
      });
    for (let i = 0; i < 60; i++) expect((await session(owner.cookie)).statusCode).toBe(404);
    expectLimited(await session(owner.cookie), 60);
    expect((await session(other.cookie)).statusCode).toBe(404);

    for (let i = 0; i < 20; i++)
      expect((await post(owner.cookie, '/api/order/999999/cancel')).statusCode).toBe(404);
    expectLimited(await post(owner.cookie, '/api/order/999999/cancel'), 60);

    // Giving and removing a seat share one budget.
    const seat = { userHashedId: 'no-such-user', organizationId: owner.organizationId };
    for (let i = 0; i < 30; i++) {
      expect((await post(owner.cookie, '/api/user/give', seat)).statusCode).toBe(404);
      expect((await post(owner.cookie, '/api/user/remove', seat)).statusCode).toBe(404);
    }
    expectLimited(await post(owner.cookie, '/api/user/give', seat), 60);
    expectLimited(await post(owner.cookie, '/api/user/remove', seat), 60);
    expect(
      (await post(other.cookie, '/api/user/give', { ...seat, organizationId: other.organizationId }))
        .statusCode,
    ).toBe(404);
  });

  it('limits the PDFs an admin asks for (extraction reports, invoice copies) as every user’s reports', async () => {
    await createUser(t, { email: 'admin@limits-provider.example.org', admin: true });
    const signIn = await t.request({
      method: 'POST',
      url: '/api/user/login',
      payload: { mail: 'admin@limits-provider.example.org', password: FIXTURE_PASSWORD },
    });
    const cookie = String(signIn.headers['set-cookie']).split(';')[0]!;
    const get = (url: string) => t.request({ method: 'GET', url, cookie });
    // Unknown ids: 404 each time, and counted in the one budget of 20 a minute.
    const urls = [
      '/api/admin/data-extractor/results/999999/generate-report/all',
      '/api/admin/orders/999999/invoice',
      '/api/admin/orders/999999/final-invoice',
    ];
    for (let i = 0; i < 20; i++) expect((await get(urls[i % urls.length]!)).statusCode).toBe(404);
    for (const url of urls) expectLimited(await get(url), 60);
    expectLimited(
      await t.request({
        method: 'POST',
        url: '/api/admin/data-extractor/results/999999/generate-report',
        cookie,
        payload: { hashedId: ['x'], containWikipediaData: false },
      }),
      60,
    );
  });

  it('limits sign-in attempts per IP address, across accounts, and X-Forwarded-For does not reset it', async () => {
    const ip = '192.0.2.20';
    for (let i = 0; i < 30; i++) {
      expect((await loginFrom(ip, `nobody${i}@limits.example.org`, FIXTURE_PASSWORD)).statusCode).toBe(401);
    }
    expectLimited(await loginFrom(ip, 'bystander@limits.example.org', FIXTURE_PASSWORD));
    expectLimited(
      await loginFrom(ip, 'bystander@limits.example.org', FIXTURE_PASSWORD, {
        'x-forwarded-for': '198.51.100.7',
      }),
    );
    // Another address signs in to the same account as usual.
    expect((await loginFrom('192.0.2.21', 'bystander@limits.example.org', FIXTURE_PASSWORD)).statusCode).toBe(
      200,
    );
  });

  it('limits forgot-password requests per account', async () => {
    const request = (ip: string) =>
      t.request({
        method: 'POST',
        url: '/api/user/request-reset',
        payload: { email: 'bystander@limits.example.org' },
        remoteAddress: ip,
      });
    for (let i = 0; i < 3; i++) expect((await request(`192.0.2.3${i}`)).statusCode).toBe(200);
    expectLimited(await request('192.0.2.39'));
  });

  it('limits registrations of one address from many IP addresses (each would mail the address’s owner)', async () => {
    const register = (mail: string, ip: string) =>
      t.request({
        method: 'POST',
        url: '/api/user/register',
        payload: registrationBody(mail),
        remoteAddress: ip,
      });
    // A taken address, then one never used: limited alike after five, so the answer tells nothing.
    for (const [mail, net] of [
      ['victim@limits.example.org', '192.0.2.5'],
      ['Fresh.Address@Limits.example.org', '192.0.2.6'],
    ] as const) {
      for (let i = 0; i < 5; i++) expect((await register(mail, `${net}${i}`)).statusCode).toBe(201);
      expectLimited(await register(mail, `${net}9`), 3600);
    }
  });

  it('limits registrations and contact messages per IP address; refused forms do not count', async () => {
    const register = (mail: string) =>
      t.request({
        method: 'POST',
        url: '/api/user/register',
        payload: {
          mail,
          password: 'Correct.Horse1',
          organizationName: 'Harbour Police Department',
          organizationLink: 'https://harbour-police.example.org',
          organizationType: 'police',
        },
        remoteAddress: '192.0.2.40',
      });
    // Every free-mail domain refused, more times than the limit: each answered for what it is.
    for (const domain of [...BLOCKED_EMAIL_DOMAINS, 'gmail.com', 'yahoo.com']) {
      expect((await register(`officer@${domain}`)).statusCode).toBe(400);
    }
    for (let i = 0; i < 10; i++)
      expect((await register(`officer${i}@harbour.example.org`)).statusCode).toBe(201);
    expectLimited(await register('officer10@harbour.example.org'), 3600);
    // A refused form still gets its field errors once the limit is reached.
    expect((await register('officer@gmail.com')).statusCode).toBe(400);

    const contact = (email: string) =>
      t.request({
        method: 'POST',
        url: '/api/support/contact-support',
        payload: { email, subject: 'General Inquiry', message: 'Hello support.' },
        remoteAddress: '192.0.2.41',
      });
    for (let i = 0; i < 12; i++) expect((await contact('')).statusCode).toBe(400);
    for (let i = 0; i < 10; i++)
      expect((await contact('reporter@newsroom.example.org')).statusCode).toBe(200);
    expectLimited(await contact('reporter@newsroom.example.org'));
  });

  it('limits every contact attempt per IP address too, refused ones included, before reading attachments', async () => {
    const attempt = () =>
      t.request({
        method: 'POST',
        url: '/api/support/contact-support',
        payload: {
          email: 'reporter@newsroom.example.org',
          subject: 'General Inquiry',
          message: 'Hello support.',
          files: [{ fileName: 'notes.exe', base64: 'AAAA' }],
        },
        remoteAddress: '192.0.2.42',
      });
    // 60 refused attempts (a file type the form does not take; a body the schema refuses) answer for what
    // they are…
    for (let i = 0; i < 30; i++) expect((await attempt()).statusCode).toBe(400);
    for (let i = 0; i < 30; i++)
      expect(
        (
          await t.request({
            method: 'POST',
            url: '/api/support/contact-support',
            payload: { email: 'reporter@newsroom.example.org', subject: 'General Inquiry' },
            remoteAddress: '192.0.2.42',
          })
        ).statusCode,
      ).toBe(400);
    // …then the address waits, whatever it sends.
    expectLimited(await attempt());
  });
});
