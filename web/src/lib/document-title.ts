import { useEffect } from 'react';
import { useMatches } from 'react-router';
import type { RouteHandle } from '../app/route-names.ts';

export const PRODUCT_NAME = 'OSINT Platform';

/** "Saved searches" → "Saved searches · OSINT Platform"; the product name alone when the page has none. */
export function documentTitle(page: string | undefined): string {
  return page ? `${page} · ${PRODUCT_NAME}` : PRODUCT_NAME;
}

/**
 * Keeps the document title on the page shown: the title of the deepest matched route that has one
 * (`handle.title`), so each page is told apart in tabs, history and by screen readers (WCAG 2.4.2).
 */
export function useRouteDocumentTitle(): void {
  const matches = useMatches();
  const page = matches
    .map((match) => (match.handle as RouteHandle | undefined)?.title)
    .filter((title): title is string => Boolean(title))
    .at(-1);
  useEffect(() => {
    document.title = documentTitle(page);
  }, [page]);
}
