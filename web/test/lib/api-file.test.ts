import { afterEach, expect, test, vi } from 'vitest';
import { apiFile } from '../../src/lib/api-client';

afterEach(() => vi.restoreAllMocks());

const answerWith = (disposition: string | null) =>
  vi.spyOn(globalThis, 'fetch').mockResolvedValue(
    new Response('%PDF-1.7', {
      status: 200,
      headers: disposition ? { 'content-disposition': disposition } : {},
    }),
  );

test('a download is named by filename* when the server sends one, else by filename, else the fallback', async () => {
  const arabic = 'saved-search-report-أحمد-2026-11-27.pdf';
  answerWith(
    `attachment; filename="saved-search-report-2026-11-27.pdf"; filename*=UTF-8''${encodeURIComponent(arabic)}`,
  );
  expect((await apiFile('/report', 'report.pdf')).fileName).toBe(arabic);
  vi.restoreAllMocks();
  answerWith('attachment; filename="invoice-INV-2026-000001.pdf"');
  expect((await apiFile('/invoice', 'invoice.pdf')).fileName).toBe('invoice-INV-2026-000001.pdf');
  vi.restoreAllMocks();
  answerWith(null);
  expect((await apiFile('/invoice', 'invoice.pdf')).fileName).toBe('invoice.pdf');
});
