import { cleanup, render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter } from 'react-router';
import { afterEach, describe, expect, test } from 'vitest';
import { FAQ_GROUPS } from '../../src/features/promo/faq-content';
import { FaqList } from '../../src/features/promo/faq-list';
import { FaqPage } from '../../src/features/promo/faq-page';

afterEach(cleanup);

function questionButtons(): HTMLElement[] {
  return screen.getAllByRole('button').filter((button) => button.hasAttribute('aria-expanded'));
}

function groupOf(title: string): HTMLElement {
  const heading = screen.getByRole('heading', { name: title });
  const group = heading.closest('.promo-faq-group');
  if (!(group instanceof HTMLElement)) throw new Error(`no group for ${title}`);
  return group;
}

describe('FAQ content', () => {
  test('has a General group of 7 and a Technical group of 5 questions', () => {
    expect(FAQ_GROUPS.map((group) => [group.title, group.entries.length])).toEqual([
      ['General', 7],
      ['Technical', 5],
    ]);
  });

  test('never quotes 100 USD for an additional user', () => {
    const text = JSON.stringify(FAQ_GROUPS);
    expect(text).toContain('50 USD per month for each additional user');
    expect(text).not.toMatch(/100 USD (per month )?(for|per) (each|every|an) additional/);
  });
});

describe('FaqPage', () => {
  test('shows the FAQ title and 7 + 5 collapsible questions', () => {
    render(
      <MemoryRouter>
        <FaqPage />
      </MemoryRouter>,
    );
    expect(screen.getByRole('heading', { level: 1, name: 'FAQ' })).toBeTruthy();
    expect(within(groupOf('General')).getAllByRole('button')).toHaveLength(7);
    expect(within(groupOf('Technical')).getAllByRole('button')).toHaveLength(5);
    expect(screen.getByRole('link', { name: 'CONTACT US' }).getAttribute('href')).toBe('/contact');
  });

  test('opens the first question by default and only that one', () => {
    render(
      <MemoryRouter>
        <FaqPage />
      </MemoryRouter>,
    );
    const expanded = questionButtons().filter((button) => button.getAttribute('aria-expanded') === 'true');
    expect(expanded.map((button) => button.textContent)).toEqual(['What is OSINT?']);
  });
});

describe('FaqList', () => {
  test('starts with every question closed unless told otherwise', () => {
    render(<FaqList />);
    const buttons = questionButtons();
    expect(buttons).toHaveLength(12);
    for (const button of buttons) expect(button.getAttribute('aria-expanded')).toBe('false');
  });

  test('starts the chosen question open', () => {
    render(<FaqList defaultOpenId="photo-requirements" />);
    const button = screen.getByRole('button', { name: 'What are the requirements for the photo?' });
    expect(button.getAttribute('aria-expanded')).toBe('true');
    expect(questionButtons().filter((b) => b.getAttribute('aria-expanded') === 'true')).toHaveLength(1);
  });

  test('shows the FAQ title as a section heading only with showTitle', () => {
    const { unmount } = render(<FaqList showTitle />);
    expect(screen.getByRole('heading', { level: 2, name: 'FAQ' })).toBeTruthy();
    expect(screen.getByRole('heading', { level: 3, name: 'General' })).toBeTruthy();
    expect(screen.getByRole('heading', { level: 4, name: 'What is OSINT?' })).toBeTruthy();
    unmount();

    render(<FaqList />);
    expect(screen.queryByRole('heading', { name: 'FAQ' })).toBeNull();
    expect(screen.getByRole('heading', { level: 2, name: 'General' })).toBeTruthy();
  });

  test('toggles a question with the mouse', async () => {
    const user = userEvent.setup();
    render(<FaqList />);
    const button = screen.getByRole('button', { name: 'Is there a free trial?' });
    const panel = document.getElementById(button.getAttribute('aria-controls') ?? '');
    expect(panel).not.toBeNull();
    expect(panel?.getAttribute('aria-labelledby')).toBe(button.id);
    expect(button.closest('.promo-faq-item')?.getAttribute('data-open')).toBe('false');

    await user.click(button);
    expect(button.getAttribute('aria-expanded')).toBe('true');
    expect(button.closest('.promo-faq-item')?.getAttribute('data-open')).toBe('true');

    await user.click(button);
    expect(button.getAttribute('aria-expanded')).toBe('false');
  });

  test('toggles a question with Enter and Space', async () => {
    const user = userEvent.setup();
    render(<FaqList />);
    const button = screen.getByRole('button', { name: 'How much does it cost?' });
    expect(button.tagName).toBe('BUTTON');

    await user.tab();
    while (document.activeElement !== button) await user.tab();
    await user.keyboard('{Enter}');
    expect(button.getAttribute('aria-expanded')).toBe('true');
    await user.keyboard(' ');
    expect(button.getAttribute('aria-expanded')).toBe('false');
  });

  test('answers the photo requirements as the specification states', async () => {
    const user = userEvent.setup();
    render(<FaqList />);
    const button = screen.getByRole('button', { name: 'What are the requirements for the photo?' });
    await user.click(button);
    const panel = document.getElementById(button.getAttribute('aria-controls') ?? '');
    const text = panel?.textContent ?? '';
    expect(text).toContain('JPG, PNG, BMP or TIFF');
    expect(text).toContain('at most 1.5 MB');
    expect(text).toMatch(/straight at the camera and is centred/);
    expect(text).toContain('at least 128x128 pixels');
  });
});
