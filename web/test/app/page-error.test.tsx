import { cleanup, render, screen } from '@testing-library/react';
import { createMemoryRouter, Outlet, RouterProvider, type RouteObject } from 'react-router';
import { afterEach, expect, test, vi } from 'vitest';
import { withPageErrors } from '../../src/app/page-error';

afterEach(cleanup);

function Broken(): never {
  throw new RangeError('Invalid time value');
}

test('a page that fails to render says so inside its layout, which stays usable', () => {
  const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);
  const router = createMemoryRouter(
    withPageErrors<RouteObject>([
      {
        element: (
          <>
            <nav aria-label="Main">
              <a href="/saved-searches">Saved searches</a>
            </nav>
            <Outlet />
          </>
        ),
        children: [
          { path: '/account', element: <Broken /> },
          { path: '/home', element: <p>home</p> },
        ],
      },
    ]),
    { initialEntries: ['/account'] },
  );
  render(<RouterProvider router={router} />);
  expect(screen.getByRole('alert').textContent).toContain('This page could not be shown');
  expect(screen.getByRole('button', { name: 'Reload the page' })).toBeTruthy();
  expect(screen.getByRole('link', { name: 'Saved searches' })).toBeTruthy();
  expect(logged).toHaveBeenCalledWith('page failed to render', expect.any(RangeError));
  logged.mockRestore();
});
