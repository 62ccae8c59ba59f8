import type { SearchResult } from '@osint/contract/search';
import { SHIPPED_SCORE_MODEL } from '@osint/contract/match-score';
import { cleanup, render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { afterEach, describe, expect, test } from 'vitest';
import { groupResults, sortResults } from '../../src/components/results/result-grouping';
import { ResultsGrid } from '../../src/components/results/results-grid';

function result(id: number, group: string, crawledAt: string, similarity = 0.9): SearchResult {
  return {
    id,
    hash: `h${id}`,
    group,
    thumbnailUrl: `/api/thumbnails/${id}`,
    imageUrl: `https://site${id}.example.org/image.jpg`,
    sourceUrl: `https://site${id}.example.org/page`,
    sourceTitle: `Page ${id}`,
    crawledAt,
    similarity,
    scoreModel: SHIPPED_SCORE_MODEL,
    faceBox: null,
    imageSize: null,
  };
}

const RESULTS = [
  result(1, 'a', '2024-03-01T00:00:00Z', 0.99),
  result(2, 'b', '2024-01-01T00:00:00Z', 0.95),
  result(3, 'a', '2024-02-01T00:00:00Z', 0.93),
  result(4, 'c', '2024-01-01T00:00:00Z', 0.9),
  result(5, 'a', '2024-04-01T00:00:00Z', 0.85),
];

afterEach(cleanup);

describe('grouping and sorting', () => {
  test('groups copies of one photo in order of their best result', () => {
    const groups = groupResults(RESULTS);
    expect(groups.map((g) => [g.groupId, g.numberOfItems, g.displayedItemId])).toEqual([
      ['a', 3, 1],
      ['b', 1, 2],
      ['c', 1, 4],
    ]);
    expect(groups[0]!.displayedThumbnail).toBe('/api/thumbnails/1');
  });

  test('Default keeps the order; Date sorts oldest first and keeps rank order on ties', () => {
    expect(sortResults(RESULTS, 'default').map((r) => r.id)).toEqual([1, 2, 3, 4, 5]);
    expect(sortResults(RESULTS, 'date').map((r) => r.id)).toEqual([2, 4, 3, 1, 5]);
    // The input is not changed.
    expect(RESULTS.map((r) => r.id)).toEqual([1, 2, 3, 4, 5]);
  });

  test('a group shows the next item when its displayed one is removed', () => {
    const groups = groupResults(RESULTS.filter((r) => r.id !== 1));
    expect(groups[0]).toMatchObject({ groupId: 'b' });
    const a = groups.find((g) => g.groupId === 'a')!;
    expect(a).toMatchObject({ numberOfItems: 2, displayedItemId: 3 });
  });
});

function Harness({ initial, grouping }: { initial: SearchResult[]; grouping: boolean }) {
  const [results, setResults] = useState(initial);
  return (
    <>
      <p data-testid="count">{results.length}</p>
      <ResultsGrid
        results={results}
        grouping={grouping}
        resetKey="test"
        restricted={false}
        onRestricted={() => undefined}
        onRemove={(r) => setResults((current) => current.filter((x) => x.id !== r.id))}
      />
    </>
  );
}

describe('ResultsGrid', () => {
  test('a group lists its first two sightings, and the others behind "Show all N"', async () => {
    const user = userEvent.setup();
    render(<Harness initial={RESULTS} grouping />);
    const group = screen.getByRole('article', { name: 'Same photo results: 3' });
    const sightings = () => within(group).getAllByRole('listitem');
    expect(sightings()).toHaveLength(2);
    const toggle = within(group).getByRole('button', { name: 'Show all 3' });
    expect(toggle.getAttribute('aria-expanded')).toBe('false');
    await user.click(toggle);
    expect(sightings()).toHaveLength(3);
    expect(toggle.getAttribute('aria-expanded')).toBe('true');
    expect(toggle.textContent).toBe('Show fewer');
  });

  test('a group shrinks as items are removed, collapses at one and disappears at none', async () => {
    const user = userEvent.setup();
    render(<Harness initial={RESULTS} grouping />);
    const grid = screen.getByRole('list', { name: 'Search results' });
    expect(
      within(grid)
        .getAllByRole('listitem', { hidden: false })
        .filter((li) => li.parentElement === grid),
    ).toHaveLength(3);
    expect(screen.getByText('Same photo results: 3')).toBeTruthy();

    await user.click(screen.getByRole('button', { name: 'Remove result 1: Page 1, similarity 0.99' }));
    expect(screen.getByText('Same photo results: 2')).toBeTruthy();
    expect(screen.getByTestId('count').textContent).toBe('4');

    // Numbers follow the list as it is now: the old third result is the second.
    await user.click(screen.getByRole('button', { name: 'Remove result 2: Page 3, similarity 0.93' }));
    // One left: a plain result, no group label.
    expect(screen.queryByText(/Same photo results/)).toBeNull();
    expect(screen.getByRole('article', { name: 'Result 3: Page 5, similarity 0.85' })).toBeTruthy();

    await user.click(screen.getByRole('button', { name: 'Remove result 3: Page 5, similarity 0.85' }));
    expect(screen.queryByRole('article', { name: /^Result \d: Page 5,/ })).toBeNull();
    expect(screen.getAllByRole('article')).toHaveLength(2);
  });

  test('shows 20 results at a time and more on request', async () => {
    const user = userEvent.setup();
    const many = Array.from({ length: 45 }, (_, i) => result(i + 1, `g${i}`, '2024-01-01T00:00:00Z'));
    render(<Harness initial={many} grouping={false} />);
    expect(screen.getAllByRole('article')).toHaveLength(20);
    await user.click(screen.getByRole('button', { name: 'Show more results' }));
    expect(screen.getAllByRole('article')).toHaveLength(40);
    await user.click(screen.getByRole('button', { name: 'Show more results' }));
    expect(screen.getAllByRole('article')).toHaveLength(45);
    expect(screen.queryByRole('button', { name: 'Show more results' })).toBeNull();
  });

  test('the grouped view steps by 4 rows of the column count', async () => {
    const user = userEvent.setup();
    const many = Array.from({ length: 30 }, (_, i) => result(i + 1, `g${i}`, '2024-01-01T00:00:00Z'));
    render(<Harness initial={many} grouping />);
    // jsdom has no media queries: 5 columns, so 4 × 5 groups.
    expect(screen.getAllByRole('article')).toHaveLength(20);
    await user.click(screen.getByRole('button', { name: 'Show more results' }));
    expect(screen.getAllByRole('article')).toHaveLength(30);
  });

  test('restricted users get the restricted action instead of links', async () => {
    const user = userEvent.setup();
    let opened = 0;
    render(
      <ResultsGrid
        results={[{ ...RESULTS[0]!, imageUrl: null, sourceUrl: null }]}
        grouping={false}
        resetKey="r"
        restricted
        onRestricted={() => (opened += 1)}
      />,
    );
    expect(screen.queryByRole('link')).toBeNull();
    await user.click(screen.getByRole('button', { name: /Source on Page 1 \(subscribers only\)/ }));
    expect(opened).toBe(1);
  });
});
