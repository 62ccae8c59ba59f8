import fs from 'node:fs/promises';
import path from 'node:path';
import nodemailer from 'nodemailer';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
  replyTo?: string;
  attachments?: { filename: string; content: Buffer; contentType?: string }[];
}

export interface MailTransport {
  send(message: MailMessage): Promise<void>;
  close(): void;
}

/**
 * SMTP when a mail URL is configured; otherwise every message becomes an .eml file in the outbox folder,
 * so the embedded product needs no mail server and a person (or a test) can open what was "sent".
 */
export function createMailTransport(options: {
  mailUrl?: string | undefined;
  from: string;
  outboxDir: string;
}): MailTransport {
  if (options.mailUrl) {
    const smtp = nodemailer.createTransport(options.mailUrl);
    return {
      send: async (message) => {
        await smtp.sendMail({ from: options.from, ...message });
      },
      close: () => smtp.close(),
    };
  }
  const stream = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  return {
    send: async (message) => {
      const info = await stream.sendMail({ from: options.from, ...message });
      await fs.mkdir(options.outboxDir, { recursive: true });
      const name = `${new Date().toISOString().replace(/[:.]/g, '-')}-${info.messageId.replace(/[^\w.-]/g, '')}.eml`;
      await fs.writeFile(path.join(options.outboxDir, name), info.message as Buffer);
    },
    close: () => stream.close(),
  };
}
