import { AxeBuilder } from '@axe-core/playwright';
import { expect, type Page } from '@playwright/test';

/** The WCAG 2.0–2.2 level A and AA rules of axe-core (issue 15 item 7: WCAG 2.2 AA). */
const WCAG_AA_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'];
const MODAL_DIALOG = '[role="dialog"][aria-modal="true"]';

/**
 * Runs axe-core over the page as it is now and fails on any serious or critical violation, listing
 * each rule with the elements it found, so a failure says what to fix. Call it on every page a test
 * visits, once the page shows what the test came for.
 */
export async function expectAccessible(page: Page, what = page.url()): Promise<void> {
  const builder = new AxeBuilder({ page }).withTags(WCAG_AA_TAGS);
  // While a modal dialog is open the page behind it is out of reach (aria-modal, and a backdrop over it),
  // so the dialog is what is checked: its covered background would only report what nobody can reach.
  if ((await page.locator(MODAL_DIALOG).count()) > 0) builder.include(MODAL_DIALOG);
  const { violations } = await builder.analyze();
  const blocking = violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => ({
      rule: `${violation.id} (${violation.impact}): ${violation.help}`,
      elements: violation.nodes.slice(0, 8).map((node) => ({
        target: node.target.join(' '),
        why: node.failureSummary?.split('\n').slice(1).join(' ').trim(),
      })),
    }));
  expect(blocking, `serious or critical accessibility violations on ${what}`).toEqual([]);
}
