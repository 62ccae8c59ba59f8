import { spawnSync } from 'node:child_process';
import {
  answeredSimilarity,
  DLIB_SCORE_MODEL,
  matchBandLabel,
  SHIPPED_SCORE_MODEL,
  similarityFigure,
  similarityText,
} from '@osint/contract/match-score';
import { describe, expect, it } from 'vitest';
import { renderSavedSearchReport } from '../../src/reports/saved-search-report.ts';

// Issue 15 item 5: one rounding of the similarity on screen and in PDFs (0.965 showed 97 % on screen and
// 96 % in the PDF). The contract's figure is the only one: the web cards print it (web/test/search/
// similarity-figure.test.tsx) and the report must print the very same text.

function pdfText(pdf: Buffer): string {
  const result = spawnSync('/usr/bin/pdftotext', ['-', '-'], { input: pdf });
  if (result.status !== 0) throw new Error(`pdftotext failed: ${result.stderr.toString()}`);
  return result.stdout.toString('utf8').replace(/\s+/g, ' ');
}

/** A saved-search report of results with these scores (nothing else of them matters here). */
function reportOf(name: string, scores: { similarity: number; scoreModel: string | null }[]) {
  return renderSavedSearchReport({
    organizationName: 'Harbour Police Department',
    preparedBy: 'analyst@harbour.test',
    generatedAt: new Date('2026-03-01T10:00:00Z'),
    savedSearch: {
      saved: true,
      name,
      description: '',
      type: 'OSINT',
      createdAt: new Date('2026-02-28T10:00:00Z'),
      image: Buffer.alloc(0),
      resultCount: scores.length,
    },
    restricted: false,
    results: scores.map((score) => ({
      ...score,
      crawledAt: new Date('2026-01-15T00:00:00Z'),
      sourceTitle: 'A page',
      imageUrl: 'https://news.example/photo.jpg',
      sourceUrl: 'https://news.example/article',
      thumbnail: null,
      face: null,
    })),
  });
}

describe('one similarity figure on screen and in PDFs (issue 15 item 5)', () => {
  it('the figure keeps two decimals and never reaches a threshold the score did not', () => {
    expect(similarityFigure(0.965)).toBe('0.96');
    // 0.679 is below the "very likely" threshold 0.68: printing "0.68" beside "Possible match" contradicted
    // the legend.
    expect(similarityFigure(0.679)).toBe('0.67');
    expect(similarityFigure(0.68)).toBe('0.68');
    expect(similarityFigure(0.57)).toBe('0.57');
    expect(similarityFigure(1)).toBe('1.00');
  });

  it('the API answers a score from which a page derives the band and figure the PDF prints', () => {
    for (const score of [0.6796, 0.67999999, 0.5799, 0.965, 0.68, 0.58, 0.123456, 1]) {
      const answered = answeredSimilarity(score);
      expect(answered).toBeLessThanOrEqual(score);
      expect(Number(answered.toFixed(3))).toBe(answered);
      expect(matchBandLabel(answered, SHIPPED_SCORE_MODEL), String(score)).toBe(
        matchBandLabel(score, SHIPPED_SCORE_MODEL),
      );
      expect(similarityFigure(answered), String(score)).toBe(similarityFigure(score));
    }
    expect(answeredSimilarity(0.6796)).toBe(0.679);
    expect(answeredSimilarity(0.68)).toBe(0.68);
  });

  it('the saved-search report prints 0.965 and 0.679 exactly as the contract helper does', async () => {
    const similarities = [0.965, 0.679];
    const pdf = await reportOf(
      'Rounding',
      similarities.map((similarity) => ({ similarity, scoreModel: SHIPPED_SCORE_MODEL })),
    );
    const text = pdfText(pdf);
    for (const similarity of similarities) {
      expect(text).toContain(
        `${matchBandLabel(similarity, SHIPPED_SCORE_MODEL)} (${similarityText(similarity)})`,
      );
    }
    expect(text).toContain('Very likely same person (similarity 0.96)');
    expect(text).toContain('Possible match (similarity 0.67)');
  });

  it('a report prints each score on the scale of the model that computed it, with that scale in its legend', async () => {
    // Results kept across a switch of face model keep their old scores: the previous model's 0.94 is a
    // possible match on its scale, and a score whose model is not known gets no band of either.
    const results = [
      { similarity: 0.94, scoreModel: DLIB_SCORE_MODEL },
      { similarity: 0.95, scoreModel: null },
      { similarity: 0.7, scoreModel: SHIPPED_SCORE_MODEL },
    ];
    const pdf = await reportOf('Across a model switch', results);
    const text = pdfText(pdf);
    expect(text).toContain('Possible match (similarity 0.94)');
    expect(text).toContain('Match by another face model (similarity 0.95)');
    expect(text).toContain('Very likely same person (similarity 0.70)');
    expect(text).toContain(`Results of the face model ${DLIB_SCORE_MODEL} are on its own scale`);
    expect(text).toContain('Scored by a face model without measured bands here');
  });
});
