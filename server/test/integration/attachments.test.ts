import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { TEST_DATABASE_KIND } from '../support/test-database.ts';

// Contact form attachments are kept under names that display as they are, with the type of their bytes.

const dataUrl = (type: string, content: Buffer) => `data:${type};base64,${content.toString('base64')}`;

describe(`attachments (${TEST_DATABASE_KIND})`, () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('an attachment name with U+202E is stored without bidi controls, with the type detected from its bytes', async () => {
    // A Windows program whose name displays as "invoiceexe.jpg", sent as a JPEG.
    const program = Buffer.concat([Buffer.from('MZ\x90\x00\x03\x00\x00\x00', 'latin1'), Buffer.alloc(64)]);
    const png = await sharp({ create: { width: 4, height: 4, channels: 3, background: '#123456' } })
      .png()
      .toBuffer();
    const subject = 'Product Support';
    const reporter = 'reporter@newsroom.example.org';
    const response = await t.request({
      method: 'POST',
      url: '/api/support/contact-support',
      payload: {
        email: reporter,
        subject,
        message: 'See the files.',
        files: [
          { fileName: 'invoice\u202Egpj.exe', base64: dataUrl('image/jpeg', program) },
          { fileName: '\u2067report\u2069\u200F.png', base64: dataUrl('application/pdf', png) },
        ],
      },
    });
    expect(response.statusCode, response.body).toBe(200);
    const stored = await t.db
      .selectFrom('support_attachments')
      .innerJoin('support_messages', 'support_messages.id', 'support_attachments.message_id')
      .select(['support_attachments.file_name', 'support_attachments.content_type'])
      .where('support_messages.subject', '=', subject)
      .where('support_messages.email', '=', reporter)
      .orderBy('support_attachments.id')
      .execute();
    expect(stored).toEqual([
      { file_name: 'invoicegpj.exe', content_type: 'application/octet-stream' },
      { file_name: 'report.png', content_type: 'image/png' },
    ]);
  });
});
