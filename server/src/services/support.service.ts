import { attachmentsProblem } from '@osint/contract/constants';
import { normalizeEmail } from '@osint/contract/email';
import { toViolations, validateContact } from '@osint/contract/validation';
import type { Config } from '../config.ts';
import { QUEUES, type JobQueue } from '../jobs/job-queue.ts';
import { badRequest } from '../lib/http-error.ts';
import { mailTemplates } from '../mail/mail-templates.ts';
import { detectFileType, safeFileName } from '../lib/file-type.ts';
import type { MailTransport } from '../mail/mail-transport.ts';
import type { NewAttachment, SupportMessageRepository } from '../repositories/support-message.repository.ts';
import type { AuthUser } from './session.service.ts';

export interface ContactRequest {
  email: string;
  subject: string;
  message: string;
  files: { fileName: string; base64: string }[];
}

/** A contact message the form's rules accept, as it will be stored. */
export interface CheckedContactMessage {
  userId: number | null;
  email: string;
  subject: string;
  message: string;
  attachments: NewAttachment[];
}

const DATA_URL = /^data:([\w.+-]+\/[\w.+-]+)?(?:;[\w-]+=[\w.+-]+)*;base64,([A-Za-z0-9+/=\s]*)$/;

export class SupportService {
  constructor(
    private readonly config: Config,
    private readonly messages: SupportMessageRepository,
    private readonly transport: MailTransport,
    private readonly queue: JobQueue,
  ) {}

  /**
   * The message as it will be stored, or a 400 naming each field the form would refuse (nothing stored).
   * A signed-in user always writes from their own address, whatever the form sent.
   */
  checkMessage(request: ContactRequest, user: AuthUser | undefined): CheckedContactMessage {
    const email = user ? user.email : request.email;
    const errors = validateContact({ ...request, email });
    const attachments = this.decodeAttachments(request.files);
    if (typeof attachments === 'string') errors.files = attachments;
    if (Object.keys(errors).length > 0 || typeof attachments === 'string') {
      throw badRequest('Please correct the highlighted fields.', toViolations(errors));
    }
    return {
      userId: user?.id ?? null,
      email: normalizeEmail(email),
      subject: request.subject.trim(),
      message: request.message,
      attachments,
    };
  }

  /** Stores a checked contact message and, in the same transaction, the job that forwards it to support. */
  async contact({ attachments, ...message }: CheckedContactMessage): Promise<void> {
    await this.messages.insert(message, attachments, (messageId) => ({
      queue: QUEUES.forwardSupportMessage,
      payload: { messageId },
    }));
    this.queue.wake();
  }

  /** Job handler: e-mails a stored message, with its attachments, to the support address. */
  async forward(payload: unknown): Promise<void> {
    const { messageId } = payload as { messageId: number };
    const stored = await this.messages.findWithAttachments(messageId);
    if (!stored) return;
    await this.transport.send({
      to: this.config.supportEmail,
      replyTo: stored.email,
      ...mailTemplates.supportMessage(stored.email, stored.subject, stored.message),
      attachments: stored.attachments.map((a) => ({
        filename: a.file_name,
        content: a.content,
        contentType: a.content_type,
      })),
    });
  }

  private decodeAttachments(files: ContactRequest['files']): NewAttachment[] | string {
    // The route takes at most 20 files; how many may be sent is attachmentsProblem's to say.
    const decoded: NewAttachment[] = [];
    for (const file of files) {
      const match = DATA_URL.exec(file.base64);
      if (!match) return `The file "${file.fileName}" could not be read.`;
      const content = Buffer.from(match[2] ?? '', 'base64');
      // The name without display tricks, and the type of the bytes: never the sender's word for either.
      decoded.push({ fileName: safeFileName(file.fileName), contentType: detectFileType(content), content });
    }
    const sizes = files.map((file, i) => ({ fileName: file.fileName, size: decoded[i]!.content.length }));
    return attachmentsProblem(sizes) ?? decoded;
  }
}
