import { linkIn, waitForMail } from '../../server/test/support/outbox.ts';

/** The confirmation, reset or invitation link the product e-mailed to `to` (read from its outbox files). */
export async function mailedLink(to: string, subject: RegExp, linkPrefix: string): Promise<string> {
  const dataDir = process.env.E2E_DATA_DIR;
  if (!dataDir) throw new Error('E2E_DATA_DIR is set by e2e/playwright.config.ts');
  const message = await waitForMail(dataDir, to, subject);
  return linkIn(message, `${process.env.E2E_BASE_URL}${linkPrefix}`);
}
