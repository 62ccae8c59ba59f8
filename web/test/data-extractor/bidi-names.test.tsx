import type { ExtractedResult, WikipediaResult } from '@osint/contract/data-extractor';
import { SHIPPED_SCORE_MODEL } from '@osint/contract/match-score';
import { cleanup, render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { mockFetch } from '../auth/fetch-mock';
import { ExtractedResultCard, WikipediaCard } from '../../src/features/data-extractor/extracted-result-card';

/** A bidi-isolated element: a <bdi>, or an element whose direction comes from its own content. */
const ISOLATED = 'bdi, [dir="auto"]';

const ARABIC_NAME = 'محمد عبد الله';
const SEEN_WITH = ['أحمد علي', 'فاطمة حسن', 'John Smith'];

function arabicResult(): ExtractedResult {
  return {
    hashedId: 'r1',
    personName: ARABIC_NAME,
    personDesc: 'وزير الخارجية (2019)',
    politician: true,
    sanctions: false,
    criminal: false,
    seenWith: true,
    checked: false,
    sourceUrl: 'https://news.example.org/r1',
    imageUrl: 'https://news.example.org/r1.jpg',
    sourceTitle: 'أخبار اليوم - News',
    thumbnailUrl: '/api/data-extractor/results/image/r1',
    similarity: 0.97,
    scoreModel: SHIPPED_SCORE_MODEL,
    crawledAt: '2024-05-01T10:00:00.000Z',
    alternativeNames: [],
    evidence: [{ flag: 'politician', source: 'page', text: 'وزير الخارجية', url: null }],
    seenWithNames: SEEN_WITH,
  };
}

function renderCard(result = arabicResult()) {
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
  return user;
}

afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

describe('right-to-left names are bidi-isolated', () => {
  test('the seen-with list puts each name in its own isolate, the text unchanged', () => {
    renderCard();
    const line = document.querySelector('.extractor-connections__names');
    expect(line?.textContent).toBe(`Seen with: ${SEEN_WITH.join(', ')}`);
    const isolates = within(line as HTMLElement)
      .getAllByText((_, element) => element?.matches(ISOLATED) ?? false)
      .map((element) => element.textContent);
    expect(isolates).toEqual(SEEN_WITH);
  });

  test('the name, description, source title and evidence quote are isolated', () => {
    renderCard();
    const card = screen.getByRole('article', { name: ARABIC_NAME });
    const get = (text: string) => within(card).getByText(text, { selector: ISOLATED });
    expect(get(ARABIC_NAME).tagName).toBe('H3');
    expect(get('وزير الخارجية (2019)').className).toBe('extractor-result__desc');
    expect(get('أخبار اليوم - News')).toBeTruthy();
    const quote = get('وزير الخارجية');
    expect(quote.parentElement?.textContent).toBe('Page“وزير الخارجية”');
  });

  test('connection names are isolated', async () => {
    mockFetch(() => ({
      status: 200,
      body: [
        {
          id: 'c1',
          name: 'أحمد علي',
          imgUrl: null,
          aboutUrl: null,
          politician: false,
          sanctions: false,
          criminal: false,
          evidence: [],
        },
        {
          id: 'c2',
          name: 'فاطمة حسن',
          imgUrl: null,
          aboutUrl: 'https://example.org/f',
          politician: true,
          sanctions: false,
          criminal: false,
          evidence: [
            { flag: 'politician', source: 'page', text: 'فاطمة حسن وزيرة', url: 'https://example.org/f' },
          ],
        },
      ],
    }));
    const user = renderCard();
    await user.click(screen.getByRole('button', { name: 'Show connections' }));
    const list = await screen.findByRole('list', { name: `Connections of ${ARABIC_NAME}` });
    const names = [...list.querySelectorAll('.extractor-connection__name')];
    expect(names.map((n) => n.textContent)).toEqual(['أحمد علي', 'فاطمة حسن']);
    for (const name of names) expect(name.matches(ISOLATED)).toBe(true);
  });

  test('the Wikipedia card name is isolated', () => {
    const wikipedia: WikipediaResult = {
      name: ARABIC_NAME,
      personDescription: 'سياسي',
      url: 'https://ar.wikipedia.org/wiki/x',
      politician: false,
      sanctions: false,
      criminal: false,
      checked: false,
      evidence: [],
    };
    render(
      <WikipediaCard
        result={wikipedia}
        admin={false}
        selected={false}
        onToggle={() => {}}
        onCheck={() => {}}
        onRestricted={() => {}}
      />,
    );
    const card = screen.getByRole('article', { name: `Wikipedia: ${ARABIC_NAME}` });
    expect(within(card).getByRole('heading', { name: ARABIC_NAME }).matches(ISOLATED)).toBe(true);
    expect(within(card).getByText('سياسي').matches(ISOLATED)).toBe(true);
  });
});
