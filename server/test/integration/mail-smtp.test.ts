import fs from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SMTPServer } from 'smtp-server';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { registrationBody } from '../support/fixtures.ts';

interface Received {
  mailFrom: string;
  rcptTo: string[];
  raw: string;
}

/** The body of a received message with quoted-printable soft breaks and escapes undone. */
function decoded(raw: string): string {
  return raw
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-F]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

function header(raw: string, name: string): string | undefined {
  const head = raw.slice(0, raw.search(/\r?\n\r?\n/)).replace(/\r?\n[ \t]+/g, ' ');
  return new RegExp(`^${name}: (.*)$`, 'im').exec(head)?.[1]?.trim();
}

describe('mail over real SMTP (MAIL_URL=smtp://…)', () => {
  let smtp: SMTPServer;
  let t: TestApp;
  const received: Received[] = [];

  beforeAll(async () => {
    smtp = new SMTPServer({
      // A plain local relay: no TLS upgrade, no login, every message accepted.
      disabledCommands: ['STARTTLS', 'AUTH'],
      logger: false,
      onData(stream, session, callback) {
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', () => {
          received.push({
            mailFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            rcptTo: session.envelope.rcptTo.map((r) => r.address),
            raw: Buffer.concat(chunks).toString('utf8'),
          });
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
    const { port } = smtp.server.address() as AddressInfo;
    t = await createTestApp({ mailUrl: `smtp://127.0.0.1:${port}` });
  });
  afterAll(async () => {
    await t.close();
    await new Promise<void>((resolve) => smtp.close(() => resolve()));
  });

  async function receivedBy(address: string, timeoutMs = 10_000): Promise<Received> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const message = received.find((m) => m.rcptTo.includes(address));
      if (message) return message;
      if (Date.now() > deadline) throw new Error(`no SMTP message to ${address} within ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  it("delivers a registration's confirmation e-mail to the SMTP server, with a working link", async () => {
    const mail = 'chief@smtp-agency.example.org';
    const response = await t.request({
      method: 'POST',
      url: '/api/user/register',
      payload: registrationBody(mail),
    });
    expect(response.statusCode).toBe(201);

    const message = await receivedBy(mail);
    expect(message.rcptTo).toEqual([mail]);
    expect(t.config.mailFrom).toContain(`<${message.mailFrom}>`);
    expect(header(message.raw, 'To')).toContain(mail);
    expect(header(message.raw, 'Subject')).toBe('Confirm your e-mail address');

    const prefix = `${t.config.publicUrl}/verify-email/`;
    const link = new RegExp(`${prefix.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}([A-Za-z0-9_-]+)`).exec(
      decoded(message.raw),
    );
    expect(link).not.toBeNull();
    expect((await t.request({ method: 'POST', url: `/api/user/validate/${link![1]}` })).statusCode).toBe(200);
    const user = await t.db
      .selectFrom('users')
      .select('status')
      .where('email', '=', mail)
      .executeTakeFirstOrThrow();
    expect(user.status).toBe('PENDING_APPROVAL');

    // With MAIL_URL set, nothing is written to the outbox folder.
    const outbox = await fs.readdir(path.join(t.config.dataDir, 'outbox')).catch(() => []);
    expect(outbox).toEqual([]);
  });

  it('delivers a contact message with its attachment to the support address', async () => {
    const content = Buffer.from('%PDF-1.4 scanned warrant, page 1 of 1\n');
    const response = await t.request({
      method: 'POST',
      url: '/api/support/contact-support',
      payload: {
        email: 'officer@smtp-agency.example.org',
        subject: 'Billing',
        message: 'Please find the order attached.',
        files: [
          { fileName: 'order.pdf', base64: `data:application/pdf;base64,${content.toString('base64')}` },
        ],
      },
    });
    expect(response.statusCode).toBe(200);

    const message = await receivedBy(t.config.supportEmail);
    expect(header(message.raw, 'Subject')).toBe('[Support] Billing');
    expect(header(message.raw, 'Reply-To')).toContain('officer@smtp-agency.example.org');
    expect(message.raw).toMatch(/Content-Disposition: attachment; filename=order\.pdf/i);
    expect(message.raw.replace(/\r?\n/g, '')).toContain(content.toString('base64'));
  });
});
