import { cleanup, render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter } from 'react-router';
import { afterEach, expect, test, vi } from 'vitest';
import { BannerProvider } from '../../src/components/message-banner';
import { SaveSearchModal } from '../../src/features/search/save-search-modal';
import { mockFetch } from '../auth/fetch-mock';

afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

test('a save whose name was emptied is sent with the default name of the analyst’s own clock', async () => {
  const { calls } = mockFetch(() => ({ status: 201, body: { id: 'saved-1' } }));
  const user = userEvent.setup();
  render(
    <BannerProvider>
      <MemoryRouter>
        <SaveSearchModal searchHash="S1" image="aGVsbG8=" onClose={() => undefined} />
      </MemoryRouter>
    </BannerProvider>,
  );
  await user.clear(screen.getByRole('textbox', { name: /name/i }));
  await user.click(screen.getByRole('button', { name: 'Save' }));
  await waitFor(() => expect(calls).toHaveLength(1));
  const now = new Date();
  const pad = (n: number) => String(n).padStart(2, '0');
  expect((calls[0]!.body as { name: string }).name).toMatch(
    new RegExp(
      `^SEARCH ${pad(now.getDate())}\\.${pad(now.getMonth() + 1)}\\.${now.getFullYear()}, \\d\\d:\\d\\d$`,
    ),
  );
});
