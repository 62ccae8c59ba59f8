import { act, cleanup, render } from '@testing-library/react';
import { createMemoryRouter, Outlet, RouterProvider, type RouteObject } from 'react-router';
import { afterEach, describe, expect, test, vi } from 'vitest';
import type { RouteHandle } from '../../src/app/route-names';
import { documentTitle, useRouteDocumentTitle } from '../../src/lib/document-title';

afterEach(cleanup);

function Root() {
  useRouteDocumentTitle();
  return <Outlet />;
}

describe('document title per page (issue 15 item 7)', () => {
  test('"Saved searches" → "Saved searches · OSINT Platform"; no page title → the product name', () => {
    expect(documentTitle('Saved searches')).toBe('Saved searches · OSINT Platform');
    expect(documentTitle(undefined)).toBe('OSINT Platform');
  });

  test('follows navigation: the deepest matched route with a title wins', async () => {
    const router = createMemoryRouter(
      [
        {
          element: <Root />,
          children: [
            { path: '/saved-searches', element: <p>list</p>, handle: { title: 'Saved searches' } },
            {
              path: '/admin',
              element: <Outlet />,
              handle: { title: 'Admin' },
              children: [{ path: 'users', element: <p>users</p>, handle: { title: 'Users · Admin' } }],
            },
            { path: '/untitled', element: <p>untitled</p> },
          ],
        },
      ],
      { initialEntries: ['/saved-searches'] },
    );
    render(<RouterProvider router={router} />);
    expect(document.title).toBe('Saved searches · OSINT Platform');
    await act(() => router.navigate('/admin/users'));
    expect(document.title).toBe('Users · Admin · OSINT Platform');
    await act(() => router.navigate('/untitled'));
    expect(document.title).toBe('OSINT Platform');
  });

  test('every route of the app has a title of its own', async () => {
    // Leaf routes are the pages; a layout route (with children) takes its title from the page shown.
    vi.stubGlobal('scrollTo', () => undefined);
    const { routes } = await import('../../src/app/router');
    const missing: string[] = [];
    const visit = (list: RouteObject[], base: string) => {
      for (const route of list) {
        const full = route.path?.startsWith('/')
          ? route.path
          : `${base}/${route.path ?? ''}`.replace('//', '/');
        if (!route.children && !(route.handle as RouteHandle | undefined)?.title) missing.push(full);
        if (route.children) visit(route.children, route.path ? full : base);
      }
    };
    visit(routes, '');
    expect(missing).toEqual([]);
  });
});
