import { DLIB_SCORE_MODEL, SHIPPED_SCORE_MODEL, similarityFigure } from '@osint/contract/match-score';
import type { SearchResult } from '@osint/contract/search';
import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, test } from 'vitest';
import { ResultCard } from '../../src/components/results/result-card';

// Issue 15 item 5: the result card prints the contract's similarity figure, the same text as the PDF
// reports (server/test/reports/similarity-figure.test.ts).

afterEach(cleanup);

function result(similarity: number, scoreModel: string | null = SHIPPED_SCORE_MODEL): SearchResult {
  return {
    id: 1,
    hash: 'h1',
    group: 'a',
    thumbnailUrl: '/api/thumbnails/1',
    imageUrl: 'https://site.example.org/image.jpg',
    sourceUrl: 'https://site.example.org/page',
    sourceTitle: 'Page',
    crawledAt: '2026-01-15T00:00:00Z',
    similarity,
    scoreModel,
    faceBox: null,
    imageSize: null,
  };
}

describe('similarity on a result card', () => {
  test.each([
    [0.965, 'Very likely same person', '(0.96)'],
    [0.679, 'Possible match', '(0.67)'],
  ])('%s prints as the contract figure', (similarity, band, figure) => {
    render(
      <ResultCard
        result={result(similarity)}
        actions={{ restricted: false, onRestricted: () => undefined, onRemove: () => undefined }}
        numberOf={() => 3}
      />,
    );
    // The accessible names carry the number, the page and the same figure as the card.
    screen.getByRole('article', { name: `Result 3: Page, similarity ${figure.slice(1, -1)}` });
    screen.getByRole('button', { name: `Remove result 3: Page, similarity ${figure.slice(1, -1)}` });
    expect(figure).toBe(`(${similarityFigure(similarity)})`);
    const score = screen.getByText(figure);
    expect(score.parentElement!.textContent).toBe(`${band} ${figure}`);
    expect(score.parentElement!.getAttribute('title')).toContain(
      `Cosine similarity ${similarityFigure(similarity)} `,
    );
  });

  test.each([
    // Kept across a switch of face model: the previous model's 0.94 is a possible match on its scale.
    [DLIB_SCORE_MODEL, 'Possible match', 'results start at 0.93'],
    [null, 'Match by another face model', 'Scored by a face model without measured bands here'],
  ])('a score of %s is read on its own model’s scale', (scoreModel, band, detail) => {
    render(
      <ResultCard
        result={result(0.944, scoreModel)}
        actions={{ restricted: false, onRestricted: () => undefined, onRemove: () => undefined }}
        numberOf={() => 1}
      />,
    );
    const score = screen.getByText('(0.94)');
    expect(score.parentElement!.textContent).toBe(`${band} (0.94)`);
    expect(score.parentElement!.getAttribute('title')).toContain(detail);
  });
});
