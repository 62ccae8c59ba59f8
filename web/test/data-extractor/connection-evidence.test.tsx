import type { ExtractedResult, SeenWithConnection } from '@osint/contract/data-extractor';
import { SHIPPED_SCORE_MODEL } from '@osint/contract/match-score';
import { cleanup, render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, expect, test, vi } from 'vitest';
import { mockFetch } from '../auth/fetch-mock';
import { ExtractedResultCard } from '../../src/features/data-extractor/extracted-result-card';

const result: ExtractedResult = {
  hashedId: 'r1',
  personName: 'Amelia Okafor',
  personDesc: 'Minister Amelia Okafor at the charity gala.',
  politician: false,
  sanctions: false,
  criminal: false,
  seenWith: true,
  checked: false,
  sourceUrl: 'https://news.example.org/gala',
  imageUrl: 'https://news.example.org/gala.jpg',
  sourceTitle: 'Charity gala',
  thumbnailUrl: '/api/data-extractor/results/image/r1',
  similarity: 0.97,
  scoreModel: SHIPPED_SCORE_MODEL,
  crawledAt: '2024-05-01T10:00:00.000Z',
  alternativeNames: [],
  evidence: [],
  seenWithNames: ['Marco Vellini', 'Jane Guest'],
};

const connections: SeenWithConnection[] = [
  {
    id: 'c1',
    name: 'Marco Vellini',
    imgUrl: null,
    aboutUrl: 'https://news.example.org/wanted',
    politician: false,
    sanctions: false,
    criminal: true,
    evidence: [
      {
        flag: 'criminal',
        source: 'page',
        text: 'Marco Vellini is wanted by the police.',
        url: 'https://news.example.org/wanted',
      },
      {
        flag: 'criminal',
        source: 'watchlist',
        text: 'Marco Vellini — demo (crime, wanted)',
        url: null,
        listName: 'demo',
        score: 1,
      },
    ],
  },
  {
    id: 'c2',
    name: 'Jane Guest',
    imgUrl: null,
    aboutUrl: null,
    politician: false,
    sanctions: false,
    criminal: false,
    evidence: [],
  },
];

afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

test('a flagged connection shows why: each sentence or list entry behind its flag, with its page', async () => {
  mockFetch(() => ({ status: 200, body: connections }));
  const user = userEvent.setup();
  render(
    <ExtractedResultCard
      context="user"
      result={result}
      selected={false}
      restricted={false}
      onToggle={() => {}}
      onRestricted={() => {}}
      onCheck={() => {}}
      onEdit={() => {}}
      onDelete={() => {}}
    />,
  );
  await user.click(screen.getByRole('button', { name: 'Show connections' }));
  const list = await screen.findByRole('list', { name: 'Connections of Amelia Okafor' });
  const [vellini, guest] = [...list.querySelectorAll<HTMLElement>(':scope > li')];
  expect(within(vellini!).getByText('Criminal', { selector: '.extractor-flags li' })).toBeTruthy();
  await user.click(within(vellini!).getByText('Why flagged (2)'));
  expect(within(vellini!).getByText('Marco Vellini is wanted by the police.')).toBeTruthy();
  expect(within(vellini!).getByText('Marco Vellini — demo (crime, wanted)')).toBeTruthy();
  expect(within(vellini!).getByRole('link', { name: 'news.example.org' }).getAttribute('href')).toBe(
    'https://news.example.org/wanted',
  );
  // Nobody flagged, nothing to explain.
  expect(within(guest!).queryByText(/Why flagged/)).toBeNull();
});
