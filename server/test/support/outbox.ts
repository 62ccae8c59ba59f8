import fs from 'node:fs/promises';
import path from 'node:path';

export interface OutboxMessage {
  file: string;
  to: string;
  subject: string;
  raw: string;
}

/** Reads the .eml files the product wrote (MAIL_URL unset): the same files a person would open. */
export async function readOutbox(dataDir: string): Promise<OutboxMessage[]> {
  const dir = path.join(dataDir, 'outbox');
  const files = await fs.readdir(dir).catch(() => [] as string[]);
  const messages: OutboxMessage[] = [];
  for (const file of files.sort()) {
    const raw = await fs.readFile(path.join(dir, file), 'utf8');
    const header = raw.slice(0, raw.indexOf('\n\n'));
    messages.push({
      file,
      to: /^To: (.*)$/im.exec(header)?.[1]?.trim() ?? '',
      subject: /^Subject: (.*)$/im.exec(header)?.[1]?.trim() ?? '',
      raw: unfoldQuotedPrintable(raw),
    });
  }
  return messages;
}

/** Waits until a message to `to` whose subject matches appears, and returns it. */
export async function waitForMail(
  dataDir: string,
  to: string,
  subject: RegExp,
  timeoutMs = 10_000,
): Promise<OutboxMessage> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = (await readOutbox(dataDir)).find((m) => m.to.includes(to) && subject.test(m.subject));
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`no mail to ${to} matching ${subject} within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The first link in a message that starts with `prefix`. */
export function linkIn(message: OutboxMessage, prefix: string): string {
  const escaped = prefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const match = new RegExp(`${escaped}[^\\s"<>]+`).exec(message.raw);
  if (!match) throw new Error(`no link starting with ${prefix} in "${message.subject}"`);
  return match[0];
}

function unfoldQuotedPrintable(raw: string): string {
  return raw
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-F]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}
