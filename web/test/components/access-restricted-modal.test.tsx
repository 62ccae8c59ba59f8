import type { SearchResult } from '@osint/contract/search';
import { SHIPPED_SCORE_MODEL } from '@osint/contract/match-score';
import { cleanup, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter, Route, Routes } from 'react-router';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { useAccessRestrictedModal } from '../../src/components/access-restricted-modal';
import { SourceLinks } from '../../src/components/results/result-card';
import { PREFERENCE_KEYS } from '../../src/lib/preferences';

const RESULT: SearchResult = {
  id: 1,
  hash: 'h1',
  group: 'a',
  thumbnailUrl: '/api/thumbnails/1',
  imageUrl: 'https://news.example.org/photo.jpg',
  sourceUrl: 'https://news.example.org/article',
  sourceTitle: 'Article',
  crawledAt: '2024-03-01T00:00:00Z',
  similarity: 0.9,
  scoreModel: SHIPPED_SCORE_MODEL,
  faceBox: null,
  imageSize: null,
};

/** A trial user's result: its source links are locked, as on the search and saved-results pages. */
function RestrictedResult() {
  const { openRestricted, restrictedModal } = useAccessRestrictedModal();
  return (
    <>
      <SourceLinks result={RESULT} actions={{ restricted: true, onRestricted: openRestricted }} />
      {restrictedModal}
    </>
  );
}

function renderResult() {
  render(
    <MemoryRouter initialEntries={['/search']}>
      <Routes>
        <Route path="/search" element={<RestrictedResult />} />
        <Route path="/pricing" element={<h1>Pricing</h1>} />
      </Routes>
    </MemoryRouter>,
  );
}

const sourceLink = () => screen.getByRole('button', { name: /^Source on .* \(subscribers only\)$/ });
const dialog = () =>
  screen.queryByRole('dialog', {
    name: 'Viewing the original source of this image is available only to subscribers.',
  });

beforeEach(() => localStorage.clear());
afterEach(cleanup);

describe('the Access Restricted modal and its "show access-restricted modal" preference (spec 001 §3)', () => {
  test('shows on every locked link until "Don\'t show this again" is ticked', async () => {
    const user = userEvent.setup();
    renderResult();
    await user.click(sourceLink());
    expect(dialog()?.textContent).toContain(
      'Viewing the original source of this image is available only to subscribers.',
    );
    await user.click(screen.getByRole('button', { name: 'BACK TO SEARCH' }));
    expect(dialog()).toBeNull();
    expect(localStorage.getItem(PREFERENCE_KEYS.hideAccessRestrictedModal)).toBeNull();

    // Not ticked: it comes back on the next locked link.
    await user.click(screen.getByRole('button', { name: /^Image on .* \(subscribers only\)$/ }));
    expect(dialog()).not.toBeNull();
    await user.click(screen.getByRole('checkbox', { name: "Don't show this again" }));
    await user.click(screen.getByRole('button', { name: 'Close' }));
    expect(localStorage.getItem(PREFERENCE_KEYS.hideAccessRestrictedModal)).toBe('true');

    // Off: the link stays disabled, with no modal and no way to the original source.
    await user.click(sourceLink());
    expect(dialog()).toBeNull();
    expect(screen.queryByRole('link', { name: /Open source/ })).toBeNull();
  });

  test('the choice is kept in the browser: a new page load does not show the modal', async () => {
    localStorage.setItem(PREFERENCE_KEYS.hideAccessRestrictedModal, 'true');
    const user = userEvent.setup();
    renderResult();
    await user.click(sourceLink());
    expect(dialog()).toBeNull();
  });

  test('UPGRADE NOW goes to pricing and keeps a ticked choice', async () => {
    const user = userEvent.setup();
    renderResult();
    await user.click(sourceLink());
    await user.click(screen.getByRole('checkbox', { name: "Don't show this again" }));
    await user.click(screen.getByRole('button', { name: 'UPGRADE NOW' }));
    expect(screen.getByRole('heading', { name: 'Pricing' })).toBeTruthy();
    expect(dialog()).toBeNull();
    expect(localStorage.getItem(PREFERENCE_KEYS.hideAccessRestrictedModal)).toBe('true');
  });
});
