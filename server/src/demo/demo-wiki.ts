import { DEMO_NOTICE } from './demo-content.ts';

/**
 * A tiny Wikipedia for the demo's fictional people, speaking the same REST API as Wikipedia (the
 * summary and search endpoints the data extractor's client uses), so that a demo extraction shows a
 * Wikipedia card without anything leaving the machine. main.ts points the client at it when DEMO_DATA
 * is on and WIKIPEDIA_URL is not set.
 */

export const DEMO_WIKI_PATHS = ['/api/rest_v1/page/summary/', '/w/rest.php/v1/search/page'];

interface DemoWikiPage {
  title: string;
  description: string;
  extract: string;
}

export const DEMO_WIKI_PAGES: DemoWikiPage[] = [
  {
    title: 'Helena Marsh',
    description: 'Fictional mayor of Riverton (demo data)',
    extract:
      'Helena Marsh (born 1975) is a fictional British politician who has been Mayor of Riverton since 2021. ' +
      'She was elected for the Riverton Civic Party and taught history at Ashvale High School before entering politics. ' +
      `(${DEMO_NOTICE}.)`,
  },
  {
    title: 'Carla Mendes',
    description: 'Fictional businesswoman, managing director of Northwind Logistics (demo data)',
    extract:
      'Carla Mendes (born 1979) is a fictional businesswoman who founded Northwind Logistics in 2009. ' +
      'She sits on the board of the Ashvale Chamber of Commerce. ' +
      `(${DEMO_NOTICE}.)`,
  },
  {
    title: 'Viktor Draganov',
    description: 'Fictional businessman under sanctions (demo data)',
    extract:
      'Viktor Draganov (born 1966) is a fictional Bulgarian businessman. ' +
      'Draganov was sanctioned by the Demo Financial Sanctions Regime in 2023, and his assets were frozen. ' +
      `(${DEMO_NOTICE}.)`,
  },
  {
    title: 'Amelia Okafor',
    description: 'Fictional government minister (demo data)',
    extract:
      'Amelia Okafor (born 1970) is a fictional politician who has served as Minister of Transport since 2022. ' +
      `(${DEMO_NOTICE}.)`,
  },
  {
    title: 'Marco Vellini',
    description: 'Fictional fugitive (demo data)',
    extract:
      'Marco Vellini (born 1981) is a fictional Italian fugitive. Vellini is wanted by police in three countries for fraud. ' +
      `(${DEMO_NOTICE}.)`,
  },
];

const keyOf = (title: string) => title.replace(/ /g, '_');

function summaryOf(page: DemoWikiPage, origin: string) {
  return {
    type: 'standard',
    title: page.title,
    displaytitle: page.title,
    titles: { canonical: keyOf(page.title), normalized: page.title, display: page.title },
    description: page.description,
    extract: page.extract,
    lang: 'en',
    content_urls: {
      desktop: { page: `${origin}/wiki/${keyOf(page.title)}` },
      mobile: { page: `${origin}/wiki/${keyOf(page.title)}` },
    },
  };
}

const fold = (text: string) =>
  text
    .normalize('NFD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[_\s]+/g, ' ')
    .trim();

/** A JSON answer for a request of the demo wiki's API, or undefined when the path is not one of its. */
export function demoWikiResponse(url: string, origin: string): { status: number; body: unknown } | undefined {
  const parsed = new URL(url, origin);
  if (parsed.pathname.startsWith('/api/rest_v1/page/summary/')) {
    const title = decodeURIComponent(parsed.pathname.slice('/api/rest_v1/page/summary/'.length));
    const page = DEMO_WIKI_PAGES.find((p) => fold(p.title) === fold(title));
    if (!page) {
      return {
        status: 404,
        body: {
          type: 'https://mediawiki.org/wiki/HyperSwitch/errors/not_found',
          title: 'Not found.',
          detail: 'Page or revision not found.',
        },
      };
    }
    return { status: 200, body: summaryOf(page, origin) };
  }
  if (parsed.pathname === '/w/rest.php/v1/search/page') {
    const query = fold(parsed.searchParams.get('q') ?? '');
    const limit = Math.min(100, Math.max(1, Number(parsed.searchParams.get('limit') ?? 10) || 10));
    const words = query.split(' ').filter(Boolean);
    const pages = DEMO_WIKI_PAGES.filter(
      (p) => words.length > 0 && words.every((w) => fold(`${p.title} ${p.extract}`).includes(w)),
    )
      .slice(0, limit)
      .map((p, i) => ({
        id: i + 1,
        key: keyOf(p.title),
        title: p.title,
        excerpt: p.extract.slice(0, 120),
        matched_title: null,
        description: p.description,
        thumbnail: null,
      }));
    return { status: 200, body: { pages } };
  }
  return undefined;
}
