import { blockedDomainMessage } from '@osint/contract/email';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registrationBody } from '../support/fixtures.ts';
import { createOwner, type Member } from '../support/team-fixtures.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { TEST_DATABASE_KIND } from '../support/test-database.ts';

// The free-mail providers are refused by register, invite and contact whatever spelling of the domain
// reaches them: the fully-qualified trailing dot, capitals, and Unicode forms that IDNA maps to them.

const SPELLINGS = [
  'someone@gmail.com.',
  'someone@GMAIL.com..',
  'someone@ｇｍａｉｌ.com',
  'someone@mail.yandex.ru.',
];

describe(`blocked domains (${TEST_DATABASE_KIND})`, () => {
  let t: TestApp;
  let owner: Member;

  beforeAll(async () => {
    t = await createTestApp();
    owner = await createOwner(t, 'owner@blocked-domains.example.org');
  });
  afterAll(() => t.close());

  const forms = {
    register: (mail: string) =>
      t.request({ method: 'POST', url: '/api/user/register', payload: registrationBody(mail) }),
    invite: (email: string) =>
      t.request({ method: 'POST', url: '/api/user/invite', cookie: owner.cookie, payload: { email } }),
    contact: (email: string) =>
      t.request({
        method: 'POST',
        url: '/api/support/contact-support',
        payload: { email, subject: 'General Inquiry', message: 'Hello support.' },
      }),
  };

  it('item 12: register, invite and contact refuse a blocked provider however its domain is written', async () => {
    const usersBefore = (await t.db.selectFrom('users').select('id').execute()).length;
    for (const [form, send] of Object.entries(forms)) {
      for (const address of SPELLINGS) {
        const response = await send(address);
        expect(response.statusCode, `${form} ${address}: ${response.body}`).toBe(400);
        const domain = address.includes('yandex') ? 'mail.yandex.ru' : 'gmail.com';
        expect(response.json().violations).toEqual([
          { field: 'email', message: blockedDomainMessage(domain) },
        ]);
      }
    }
    expect((await t.db.selectFrom('users').select('id').execute()).length).toBe(usersBefore);
    expect(await t.db.selectFrom('support_messages').select('id').execute()).toHaveLength(0);
  });
});
