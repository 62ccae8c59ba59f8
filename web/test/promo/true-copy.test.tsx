import { cleanup, render } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { afterEach, describe, expect, test } from 'vitest';
import { AboutPage } from '../../src/features/promo/about-page';
import { FAQ_GROUPS } from '../../src/features/promo/faq-content';
import { HomePage } from '../../src/features/promo/home-page';
import { PRIVACY_POLICY } from '../../src/features/promo/privacy-policy-content';
import { TERMS_OF_SERVICE } from '../../src/features/promo/terms-of-service-content';

afterEach(cleanup);

// Issue 16 item 16: every sentence of the promo pages, the FAQ and the legal documents is true of the
// product as it runs. These pin the sentences that were not.

const faqText = JSON.stringify(FAQ_GROUPS);
const legalText = JSON.stringify([TERMS_OF_SERVICE, PRIVACY_POLICY]);

function pageText(page: React.ReactElement): string {
  const { container } = render(<MemoryRouter>{page}</MemoryRouter>);
  return (container.textContent ?? '').replace(/\s+/g, ' ');
}

/** A claimed daily indexing volume: the index grows with what the crawler finds, not by a fixed amount. */
const DAILY_VOLUME = /terabyte|\b\d+\s*TB\b/i;
/** The trial ends by itself and nothing is billed without an order: no "unless you cancel" anywhere. */
const BILLING_AFTER_TRIAL = /billing starts after the trial|unless (you|the customer) cancel/i;

describe('copy that matches the product', () => {
  test('the FAQ says saved searches and extractions are shared in the organization, not kept per user', () => {
    expect(faqText).not.toMatch(/stay under their own login/);
    expect(faqText).toContain(
      'Saved searches and AI data extractions belong to the organization: every user of your organization sees them, whoever started them.',
    );
  });

  test('the trial ends by itself: nothing is billed without an order (FAQ, Terms)', () => {
    expect(faqText).not.toMatch(BILLING_AFTER_TRIAL);
    expect(legalText).not.toMatch(BILLING_AFTER_TRIAL);
    expect(faqText).toContain(
      'The trial ends by itself on its last day. Nothing is billed unless your owner orders a plan',
    );
    expect(legalText).toContain(
      'The trial ends by itself on its last day; nothing is charged unless the Customer orders a plan.',
    );
    // The spec's promise stays: no card for the trial.
    expect(faqText).toContain('no credit card is required');
  });

  test('no page claims a daily indexing volume; the index is described as what it is', () => {
    const home = pageText(<HomePage signedIn={false} />);
    cleanup();
    const about = pageText(<AboutPage />);
    for (const text of [home, about, faqText, legalText]) expect(text).not.toMatch(DAILY_VOLUME);
    expect(home).toMatch(/Public web\s*indexed by our own crawler/);
    expect(faqText).toContain('The index is built by our own crawler, which visits public websites');
  });

  test('the landing page says the trial hides source links', () => {
    const home = pageText(<HomePage signedIn={false} />);
    expect(home).toContain('7-day free trial, no credit card required');
    expect(home).toContain(
      'The trial searches like a paid plan but hides the source links of results: opening the original image and its page is for subscribers.',
    );
    expect(faqText).toContain('the trial hides the source links of results');
  });

  test('saving a search or watching a face keeps a picture of the face, and the copy says so', () => {
    expect(faqText).not.toMatch(/never stored/);
    expect(faqText).toContain('saving a search keeps it as the cover of the saved search');
    expect(legalText).toContain(
      'a small picture of the chosen face is kept only when an Authorised User saves',
    );
    const about = pageText(<AboutPage />);
    expect(about).not.toMatch(/never stored/);
  });
});
