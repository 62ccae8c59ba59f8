import { cleanup, render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, test } from 'vitest';
import { PrivacyPolicyPage } from '../../src/features/promo/privacy-policy-page';
import { TermsOfServicePage } from '../../src/features/promo/terms-of-service-page';
import { TERMS_OF_SERVICE } from '../../src/features/promo/terms-of-service-content';
import { PRIVACY_POLICY } from '../../src/features/promo/privacy-policy-content';

afterEach(cleanup);

function sectionHeadings(): string[] {
  const article = screen.getByRole('article');
  return within(article)
    .getAllByRole('heading', { level: 2 })
    .map((heading) => heading.textContent ?? '');
}

function tocLinks(): HTMLAnchorElement[] {
  const nav = screen.getByRole('navigation', { name: 'Contents' });
  return within(nav).getAllByRole('link') as HTMLAnchorElement[];
}

describe('Terms of Service', () => {
  test('has the 15 sections and two annexes of the specification, in order', () => {
    render(<TermsOfServicePage />);
    expect(screen.getByRole('heading', { level: 1, name: 'Terms of Service' })).toBeTruthy();
    const expected = [
      /^1\. Agreement$/,
      /^2\. Parties and roles$/,
      /^3\. Services$/,
      /^4\. Access restrictions and verification$/,
      /^5\. Data processing$/,
      /^6\. Payments$/,
      /^7\. Refunds$/,
      /^8\. Use restrictions$/,
      /^9\. Availability$/,
      /^10\. Intellectual property$/,
      /^11\. Indemnification$/,
      /^12\. .*liability$/i,
      /^13\. Modifications$/,
      /^14\. Governing law/,
      /^15\. Final provisions$/,
      /^Annex I Governmental and law-enforcement entities$/,
      /^Annex II Private-sector entities$/,
    ];
    const headings = sectionHeadings();
    expect(headings).toHaveLength(expected.length);
    headings.forEach((heading, index) => expect(heading).toMatch(expected[index] as RegExp));
  });

  test('shows the version date', () => {
    render(<TermsOfServicePage />);
    const time = screen.getByText('January 22nd, 2024');
    expect(time.tagName).toBe('TIME');
    expect(time.getAttribute('datetime')).toBe('2024-01-22');
  });

  test('states the payment, refund and jurisdiction rules', () => {
    const text = JSON.stringify(TERMS_OF_SERVICE);
    expect(text).toContain('merchant of record');
    expect(text).toContain('bank transfer on invoice');
    expect(text).toContain('payable in advance');
    expect(text).toContain('within 14 days after its subscription');
    expect(text).toContain('The free trial is excluded');
    expect(text).toContain('laws of the State of Israel');
    expect(text).toContain('courts of Tel Aviv-Yafo');
    expect(text).toContain('50 USD per month for every additional');
  });

  test('links every section from the table of contents', async () => {
    const user = userEvent.setup();
    render(<TermsOfServicePage />);
    const links = tocLinks();
    expect(links).toHaveLength(17);
    for (const link of links) {
      const id = link.getAttribute('href')?.slice(1) ?? '';
      expect(document.getElementById(id)?.tagName).toBe('SECTION');
    }
    const refunds = links.find((link) => link.textContent?.includes('Refunds'));
    if (!refunds) throw new Error('no Refunds link');
    await user.click(refunds);
    expect(document.activeElement?.id).toBe('terms-refunds');
    expect(window.location.hash).toBe('#terms-refunds');
  });
});

describe('Privacy Policy', () => {
  test('has the sections of the specification, in order', () => {
    render(<PrivacyPolicyPage />);
    expect(screen.getByRole('heading', { level: 1, name: 'Privacy Policy' })).toBeTruthy();
    const expected = [
      /Roles/,
      /Definitions/,
      /Processing activities/,
      /controller/i,
      /Data-subject rights/,
      /Subprocessors/,
      /transfers/i,
      /Security/,
      /Retention/,
      /Children’s data/,
      /Ethics/,
      /Changes/,
      /Jurisdiction/,
    ];
    const headings = sectionHeadings();
    expect(headings).toHaveLength(expected.length);
    headings.forEach((heading, index) => expect(heading).toMatch(expected[index] as RegExp));
    expect(tocLinks()).toHaveLength(expected.length);
  });

  test('shows the version date', () => {
    render(<PrivacyPolicyPage />);
    expect(screen.getByText('January 22nd, 2024').getAttribute('datetime')).toBe('2024-01-22');
  });

  test('states the roles, transfers, security and retention rules', () => {
    const text = JSON.stringify(PRIVACY_POLICY);
    expect(text).toContain('the customer is the data controller');
    expect(text).toContain('We act as data processor');
    expect(text).toContain('forward it to the controller');
    expect(text).toContain('servers are located in the United States');
    expect(text).toContain('Israel and Georgia');
    expect(text).toContain('security audits every quarter and weekly security reports');
    expect(text).toContain('24 hours a day, 7 days a week');
    expect(text).toContain('uploaded photos are not stored');
    expect(text).toContain('deleted after 30 days of inactivity');
    expect(text).toContain('system logs are anonymized after 90 days');
    expect(text).toContain('kept for 7 years');
    expect(text).toContain('persons under 18 years of age are blocked');
    expect(text).toContain('laws of the State of Israel');
    expect(text).toContain('Tel Aviv-Yafo');
  });
});
