import type { Db } from '../db/database.ts';
import { insertWithJob, type NewJob } from './job.repository.ts';

export interface NewAttachment {
  fileName: string;
  contentType: string;
  content: Buffer;
}

export class SupportMessageRepository {
  constructor(private readonly db: Db) {}

  /** Stores a message with its attachments and, in the same transaction, the job `jobOf` makes of its id. */
  insert(
    message: { userId: number | null; email: string; subject: string; message: string },
    attachments: NewAttachment[],
    jobOf: (id: number) => NewJob,
  ) {
    return insertWithJob(
      this.db,
      async (tx) => {
        const row = await tx
          .insertInto('support_messages')
          .values({
            user_id: message.userId,
            email: message.email,
            subject: message.subject,
            message: message.message,
          })
          .returning('id')
          .executeTakeFirstOrThrow();
        if (attachments.length > 0) {
          await tx
            .insertInto('support_attachments')
            .values(
              attachments.map((a) => ({
                message_id: row.id,
                file_name: a.fileName,
                content_type: a.contentType,
                content: a.content,
              })),
            )
            .execute();
        }
        return row.id;
      },
      jobOf,
    );
  }

  async findWithAttachments(id: number) {
    const message = await this.db
      .selectFrom('support_messages')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirst();
    if (!message) return undefined;
    const attachments = await this.db
      .selectFrom('support_attachments')
      .selectAll()
      .where('message_id', '=', id)
      .orderBy('id')
      .execute();
    return { ...message, attachments };
  }
}
