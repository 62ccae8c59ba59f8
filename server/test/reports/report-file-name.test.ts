import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { reportFileName } from '../../src/reports/pdf-parts.ts';
import { sendPdf } from '../../src/routes/replies.ts';

const DAY = new Date('2026-11-27T10:00:00Z');

describe('report file names', () => {
  it('keep the letters and digits of every script, everything else a hyphen', () => {
    expect(reportFileName('saved-search-report', 'Mayor Helena Marsh', DAY, 'saved-search')).toBe(
      'saved-search-report-mayor-helena-marsh-2026-11-27.pdf',
    );
    expect(reportFileName('saved-search-report', 'المشتبه به: أحمد', DAY, 'saved-search')).toBe(
      'saved-search-report-المشتبه-به-أحمد-2026-11-27.pdf',
    );
    expect(reportFileName('data-extractor-report', '王伟 / 李娜', DAY, 'extraction')).toBe(
      'data-extractor-report-王伟-李娜-2026-11-27.pdf',
    );
    expect(reportFileName('search-report', '  ***  ', DAY, 'search')).toBe(
      'search-report-search-2026-11-27.pdf',
    );
  });

  it('are sent whole in filename*, with an ASCII stand-in in filename', async () => {
    const app = Fastify();
    app.get('/:name', (request, reply) =>
      sendPdf(reply, { pdf: Buffer.from('%PDF-1.7'), fileName: (request.params as { name: string }).name }),
    );
    const sent = async (fileName: string) =>
      (await app.inject({ method: 'GET', url: `/${encodeURIComponent(fileName)}` })).headers[
        'content-disposition'
      ];
    expect(await sent('invoice-INV-2026-000001.pdf')).toBe(
      'attachment; filename="invoice-INV-2026-000001.pdf"',
    );
    const arabic = 'saved-search-report-أحمد-2026-11-27.pdf';
    expect(await sent(arabic)).toBe(
      `attachment; filename="saved-search-report-2026-11-27.pdf"; filename*=UTF-8''${encodeURIComponent(arabic)}`,
    );
    await app.close();
  });
});
