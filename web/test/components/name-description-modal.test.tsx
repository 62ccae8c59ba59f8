import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter } from 'react-router';
import { afterEach, expect, test, vi } from 'vitest';
import { NameDescriptionModal } from '../../src/components/name-description-modal';

afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

test('while the form is sent the modal cannot be closed and Cancel is disabled', async () => {
  let finish: () => void = () => undefined;
  const onSubmit = vi.fn(() => new Promise<void>((resolve) => (finish = resolve)));
  const onClose = vi.fn();
  const user = userEvent.setup();
  render(
    <MemoryRouter>
      <NameDescriptionModal
        title="Save search"
        initialName="My search"
        descriptionLabel="Description"
        descriptionRows={3}
        submitLabel="Save"
        confirmation={{
          title: 'Search saved',
          lead: 'In progress',
          text: 'It is being saved.',
          link: { to: '/saved-searches', label: 'Saved searches' },
        }}
        onSubmit={onSubmit}
        onClose={onClose}
      />
    </MemoryRouter>,
  );
  await user.click(screen.getByRole('button', { name: 'Save' }));
  expect(onSubmit).toHaveBeenCalledTimes(1);

  const dialog = screen.getByRole('dialog', { name: 'Save search' });
  expect(within(dialog).getByRole<HTMLButtonElement>('button', { name: 'Cancel' }).disabled).toBe(true);
  fireEvent.keyDown(dialog, { key: 'Escape' });
  fireEvent.click(within(dialog).getByRole('button', { name: 'Close' }));
  expect(onClose).not.toHaveBeenCalled();

  finish();
  expect(await screen.findByRole('dialog', { name: 'Search saved' })).toBeTruthy();
});
