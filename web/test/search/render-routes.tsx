import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { ReactNode } from 'react';
import { MemoryRouter, Routes } from 'react-router';
import { BannerProvider } from '../../src/components/message-banner';

/**
 * Renders routes as the app provides them (a query client without retries, the banner, a router at
 * `path`); returns the user-event session to drive them with.
 */
export function renderRoutes(routes: ReactNode, path: string, extra?: ReactNode) {
  const user = userEvent.setup();
  render(
    <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
      <BannerProvider>
        <MemoryRouter initialEntries={[path]}>
          {extra}
          <Routes>{routes}</Routes>
        </MemoryRouter>
      </BannerProvider>
    </QueryClientProvider>,
  );
  return user;
}
