import { act, cleanup, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter } from 'react-router';
import { afterEach, expect, test } from 'vitest';
import { SiteHeader } from '../../src/app/layouts/site-header';

afterEach(cleanup);

test('Escape closes the open menu, from the burger or a link, and hands the focus back to the burger', async () => {
  const user = userEvent.setup();
  render(
    <MemoryRouter initialEntries={['/home']}>
      <SiteHeader
        logoTo="/home"
        items={[
          { to: '/home', label: 'Home', end: true },
          { to: '/search', label: 'Search' },
        ]}
      />
    </MemoryRouter>,
  );
  const burger = screen.getByRole('button', { name: 'Open menu' });
  await user.click(burger);
  expect(burger.getAttribute('aria-expanded')).toBe('true');
  await user.keyboard('{Escape}');
  expect(burger.getAttribute('aria-expanded')).toBe('false');
  expect(document.activeElement).toBe(burger);

  await user.click(burger);
  screen.getByRole('link', { name: 'Search' }).focus();
  await user.keyboard('{Escape}');
  expect(burger.getAttribute('aria-expanded')).toBe('false');
  expect(document.activeElement).toBe(burger);
});

test('the open menu closes when the focus moves on past it, not while it moves within it', async () => {
  const user = userEvent.setup();
  render(
    <MemoryRouter initialEntries={['/home']}>
      <SiteHeader logoTo="/home" items={[{ to: '/search', label: 'Search' }]} />
      <button type="button">Behind the menu</button>
    </MemoryRouter>,
  );
  const burger = screen.getByRole('button', { name: 'Open menu' });
  await user.click(burger);
  // Focus going nowhere (another window; a tap that focuses nothing, as Safari's on a link) keeps it open.
  act(() => burger.blur());
  expect(burger.getAttribute('aria-expanded')).toBe('true');
  burger.focus();
  await user.tab();
  expect(document.activeElement).toBe(screen.getByRole('link', { name: 'Search' }));
  expect(burger.getAttribute('aria-expanded')).toBe('true');
  await user.tab();
  expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Behind the menu' }));
  expect(burger.getAttribute('aria-expanded')).toBe('false');
});
