import { QUEUES, type JobQueue } from '../jobs/job-queue.ts';
import type { MailMessage, MailTransport } from '../mail/mail-transport.ts';

/** Mail goes through the job queue: a mail server that is down delays a message, it does not lose it. */
export class MailService {
  constructor(
    private readonly queue: JobQueue,
    private readonly transport: MailTransport,
  ) {}

  /** `uniqueKey` queues the message at most once under that key (a job that may run twice). */
  async send(
    to: string,
    template: Omit<MailMessage, 'to'>,
    options: { uniqueKey?: string } = {},
  ): Promise<void> {
    await this.queue.enqueue(QUEUES.sendMail, { ...template, to }, options);
  }

  /** The job handler. Attachments are not queued (the queue holds JSON); they are sent directly. */
  async deliver(payload: unknown): Promise<void> {
    await this.transport.send(payload as MailMessage);
  }
}
