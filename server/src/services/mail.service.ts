import { QUEUES, type JobQueue } from '../jobs/job-queue.ts';
import type { MailMessage, MailTransport } from '../mail/mail-transport.ts';
import type { JobRepository } from '../repositories/job.repository.ts';

/** Mail goes through the job queue: a mail server that is down delays a message, it does not lose it. */
export class MailService {
  constructor(
    private readonly queue: JobQueue,
    private readonly transport: MailTransport,
  ) {}

  /**
   * Queues a message. `organizationId`: the organization whose work it tells of (an invitation, a notice
   * of its plan or its extraction), so that its mails take turns with the other organizations' (the
   * job queue's claim); none for a person's own account mail and the platform's.
   */
  async send(to: string, template: Omit<MailMessage, 'to'>, organizationId?: number | null): Promise<void> {
    await this.queue.enqueue(QUEUES.sendMail, { ...template, to }, { organizationId });
  }

  /** Queues a message through `jobs`, a job repository over the caller's transaction: sent only if it commits. */
  async queueWith(
    jobs: JobRepository,
    to: string,
    template: Omit<MailMessage, 'to'>,
    organizationId?: number | null,
  ): Promise<void> {
    await jobs.insert({ queue: QUEUES.sendMail, payload: { ...template, to }, organizationId });
  }

  /** The job handler. Attachments are not queued (the queue holds JSON); they are sent directly. */
  async deliver(payload: unknown): Promise<void> {
    await this.transport.send(payload as MailMessage);
  }
}
