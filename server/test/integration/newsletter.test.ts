import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, findUserByEmail, login, registrationBody } from '../support/fixtures.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';

// Newsletter (spec 000 §1, §7): a signed-in user subscribes and unsubscribes, the user info the footer and
// the account settings read says which, and registering leaves it off unless the newsletter box is ticked.

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp();
});

afterAll(async () => {
  await t?.close();
});

function setNewsletter(cookie: string, payload: Record<string, unknown>) {
  return t.request({ method: 'POST', url: '/api/user/subscribe_newsletter', cookie, payload });
}

async function newsletterOf(cookie: string): Promise<boolean> {
  const info = await t.request({ method: 'GET', url: '/api/user/user-info', cookie });
  return info.json<{ newsletter: boolean }>().newsletter;
}

describe('newsletter', () => {
  it('subscribes and unsubscribes the signed-in user only, and the user info follows', async () => {
    await createUser(t, { email: 'reader@news.example.org' });
    await createUser(t, { email: 'bystander@news.example.org' });
    const cookie = await login(t, 'reader@news.example.org');
    const bystander = await login(t, 'bystander@news.example.org');
    expect(await newsletterOf(cookie)).toBe(false);

    expect((await setNewsletter(cookie, { subscribed: true })).statusCode).toBe(200);
    expect(await newsletterOf(cookie)).toBe(true);
    expect(await newsletterOf(bystander)).toBe(false);

    expect((await setNewsletter(cookie, { subscribed: false })).statusCode).toBe(200);
    expect(await newsletterOf(cookie)).toBe(false);
    expect((await findUserByEmail(t, 'reader@news.example.org'))!.newsletter).toBe(false);

    // Bad input changes nothing.
    await setNewsletter(cookie, { subscribed: true });
    for (const payload of [{}, { subscribed: 'no' }]) {
      expect((await setNewsletter(cookie, payload)).statusCode).toBe(400);
      expect(await newsletterOf(cookie)).toBe(true);
    }
  });

  it('is off after registering unless the newsletter was chosen', async () => {
    const { newsletter: _off, ...withoutNewsletter } = registrationBody('quiet@news.example.org');
    expect(
      (await t.request({ method: 'POST', url: '/api/user/register', payload: withoutNewsletter })).statusCode,
    ).toBe(201);
    expect((await findUserByEmail(t, 'quiet@news.example.org'))!.newsletter).toBe(false);
    const chosen = { ...registrationBody('keen@news.example.org'), newsletter: true };
    expect((await t.request({ method: 'POST', url: '/api/user/register', payload: chosen })).statusCode).toBe(
      201,
    );
    expect((await findUserByEmail(t, 'keen@news.example.org'))!.newsletter).toBe(true);
  });
});
