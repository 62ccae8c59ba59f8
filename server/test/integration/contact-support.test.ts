import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONTACT_MESSAGES } from '@osint/contract/validation';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { waitForMail, type OutboxMessage } from '../support/outbox.ts';
import { createUser, login } from '../support/fixtures.ts';

// A 1×1 PNG, a text file and bytes of every value: what a browser's FileReader.readAsDataURL produces.
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);
const TEXT = Buffer.from(
  'Case 2024-17: the page https://example.org/p/17 shows my client without consent.\n',
);
const BINARY = Buffer.from(Array.from({ length: 256 }, (_, i) => i));

const dataUrl = (type: string, content: Buffer) => `data:${type};base64,${content.toString('base64')}`;

interface MimePart {
  headers: Record<string, string>;
  body: string;
}

/** The leaf parts of a MIME message (enough of RFC 2045/2046 for the messages nodemailer writes). */
function mimeParts(raw: string): MimePart[] {
  const split = raw.indexOf('\n\n');
  const headerText = raw.slice(0, split).replace(/\r?\n[ \t]+/g, ' ');
  const body = raw.slice(split + 2);
  const headers: Record<string, string> = {};
  for (const line of headerText.split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const boundary = /multipart\/[\w-]+;.*boundary="?([^";]+)"?/i.exec(headers['content-type'] ?? '')?.[1];
  if (!boundary) return [{ headers, body }];
  return body
    .split(`--${boundary}`)
    .slice(1, -1)
    .flatMap((part) => mimeParts(part.replace(/^\r?\n/, '')));
}

async function attachmentsOf(message: OutboxMessage, dataDir: string) {
  const raw = (await fs.readFile(path.join(dataDir, 'outbox', message.file), 'utf8')).replace(/\r\n/g, '\n');
  return mimeParts(raw)
    .filter((part) => /^attachment/i.test(part.headers['content-disposition'] ?? ''))
    .map((part) => ({
      fileName: /filename="?([^";]+)"?/.exec(part.headers['content-disposition']!)![1],
      contentType: part.headers['content-type']!.split(';')[0],
      content: Buffer.from(part.body.replace(/\s+/g, ''), 'base64'),
    }));
}

function headerOf(message: OutboxMessage, name: string): string | undefined {
  const header = message.raw.slice(0, message.raw.indexOf('\n\n'));
  return new RegExp(`^${name}: (.*)$`, 'im').exec(header)?.[1]?.trim();
}

describe('contact form (POST /api/support/contact-support)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  const contact = (payload: Record<string, unknown>, cookie?: string) =>
    t.request({ method: 'POST', url: '/api/support/contact-support', payload, cookie });
  const valid = {
    email: 'reporter@newsroom.example.org',
    subject: 'General Inquiry',
    message: 'Hello support.',
  };

  async function storedCounts() {
    const messages = await t.db.selectFrom('support_messages').select('id').execute();
    const attachments = await t.db.selectFrom('support_attachments').select('id').execute();
    const jobs = await t.db.selectFrom('jobs').select('id').where('queue', '=', 'support.forward').execute();
    return { messages: messages.length, attachments: attachments.length, jobs: jobs.length };
  }

  describe('validation messages of spec 000 §5, as violations', () => {
    it.each([
      ['a missing email', { email: '' }, 'email', 'Email is required'],
      ['a blank email', { email: '   ' }, 'email', 'Email is required'],
      ['a malformed email', { email: 'reporter.newsroom.example.org' }, 'email', 'Email format is invalid'],
      [
        'an email with a space',
        { email: 'reporter @newsroom.example.org' },
        'email',
        'Email format is invalid',
      ],
      [
        'a free-mail address',
        { email: 'reporter@gmail.com' },
        'email',
        "We don't support emails from 'gmail.com'. Please use a different email provider.",
      ],
      [
        'a free-mail subdomain in capitals',
        { email: 'reporter@Mail.Yandex.RU' },
        'email',
        "We don't support emails from 'mail.yandex.ru'. Please use a different email provider.",
      ],
      ['a missing subject', { subject: '' }, 'subject', 'Subject is required'],
      ['a blank subject', { subject: '  ' }, 'subject', 'Subject is required'],
      [
        'a subject that is not one of the four',
        { subject: 'Other' },
        'subject',
        'subject must be one of: General Inquiry, Product Support, Billing, Feedback',
      ],
      ['a missing message', { message: '' }, 'message', 'Message is required'],
      ['a blank message', { message: '\n \n' }, 'message', 'Message is required'],
    ])('refuses %s', async (_label, change, field, message) => {
      const before = await storedCounts();
      const response = await contact({ ...valid, ...change });
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({ statusCode: 400, error: 'Bad Request' });
      expect(response.json().violations).toEqual([{ field, message }]);
      expect(await storedCounts()).toEqual(before);
    });

    it('reports every wrong field at once', async () => {
      const response = await contact({ email: '', subject: '', message: '' });
      expect(response.statusCode).toBe(400);
      expect(response.json().violations).toEqual([
        { field: 'email', message: CONTACT_MESSAGES.emailRequired },
        { field: 'subject', message: CONTACT_MESSAGES.subjectRequired },
        { field: 'message', message: CONTACT_MESSAGES.messageRequired },
      ]);
    });
  });

  it('stores the message with its attachments and e-mails them to the support address', async () => {
    const subject = 'Product Support';
    const files = [
      { fileName: 'screenshot.png', base64: dataUrl('image/png', PNG) },
      { fileName: 'notes.txt', base64: dataUrl('text/plain', TEXT) },
      { fileName: 'evidence.bin', base64: dataUrl('application/octet-stream', BINARY) },
    ];
    const response = await contact({ ...valid, email: 'Reporter@Newsroom.Example.org', subject, files });
    expect(response.statusCode).toBe(200);

    const stored = await t.db
      .selectFrom('support_messages')
      .selectAll()
      .where('subject', '=', subject)
      .executeTakeFirstOrThrow();
    expect(stored).toMatchObject({
      email: 'reporter@newsroom.example.org',
      message: valid.message,
      user_id: null,
    });
    const attachments = await t.db
      .selectFrom('support_attachments')
      .selectAll()
      .where('message_id', '=', stored.id)
      .orderBy('id')
      .execute();
    expect(attachments.map((a) => [a.file_name, a.content_type])).toEqual([
      ['screenshot.png', 'image/png'],
      ['notes.txt', 'text/plain'],
      ['evidence.bin', 'application/octet-stream'],
    ]);
    expect(attachments.map((a) => Buffer.from(a.content).toString('hex'))).toEqual(
      [PNG, TEXT, BINARY].map((b) => b.toString('hex')),
    );

    const mail = await waitForMail(t.config.dataDir, t.config.supportEmail, new RegExp(subject));
    expect(mail.to).toContain(t.config.supportEmail);
    expect(headerOf(mail, 'Reply-To')).toContain('reporter@newsroom.example.org');
    expect(mail.raw).toContain(valid.message);
    const mailed = await attachmentsOf(mail, t.config.dataDir);
    expect(mailed.map((a) => [a.fileName, a.contentType])).toEqual([
      ['screenshot.png', 'image/png'],
      ['notes.txt', 'text/plain'],
      ['evidence.bin', 'application/octet-stream'],
    ]);
    expect(mailed.map((a) => a.content.toString('hex'))).toEqual(
      [PNG, TEXT, BINARY].map((b) => b.toString('hex')),
    );
  });

  it("writes from a signed-in user's own address, whatever the form sent", async () => {
    const email = 'analyst@contact-user.example.org';
    const user = await createUser(t, { email });
    const cookie = await login(t, email);

    const subjects = ['Billing', 'Feedback'];
    const spoofed = await contact(
      { ...valid, subject: subjects[0], email: 'someone-else@other.example.org' },
      cookie,
    );
    expect(spoofed.statusCode).toBe(200);
    // The form's email field is locked when signed in; an empty or free-mail value changes nothing either.
    const empty = await contact({ ...valid, subject: subjects[1], email: '' }, cookie);
    expect(empty.statusCode).toBe(200);

    const stored = await t.db
      .selectFrom('support_messages')
      .select(['email', 'user_id'])
      .where('subject', 'in', subjects)
      .orderBy('id')
      .execute();
    expect(stored).toEqual([
      { email, user_id: user.id },
      { email, user_id: user.id },
    ]);
    const mail = await waitForMail(t.config.dataDir, t.config.supportEmail, /Billing/);
    expect(headerOf(mail, 'Reply-To')).toContain(email);
    expect(mail.raw).not.toContain('someone-else@other.example.org');
  });

  it.each([
    ['text that is not a data URL', 'hello'],
    ['a data URL that is not base64', 'data:text/plain,hello'],
    ['a data URL with characters outside base64', 'data:text/plain;base64,aGVs*bG8='],
  ])('refuses a file given as %s with a files violation, and stores nothing', async (_label, base64) => {
    const before = await storedCounts();
    const response = await contact({
      ...valid,
      files: [
        { fileName: 'fine.txt', base64: dataUrl('text/plain', TEXT) },
        { fileName: 'broken.txt', base64 },
      ],
    });
    expect(response.statusCode).toBe(400);
    const violations = response.json<{ violations: { field: string; message: string }[] }>().violations;
    expect(violations).toHaveLength(1);
    expect(violations[0]!.field).toBe('files');
    expect(violations[0]!.message).toContain('broken.txt');
    expect(await storedCounts()).toEqual(before);
  });
});
