import { cleanup, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { afterEach, describe, expect, test } from 'vitest';
import { Modal } from '../../src/components/modal';

/** A two-step dialog, as the payment modal is: sending the form replaces it with the next step. */
function TwoSteps({ onClose }: { onClose: () => void }) {
  const [sent, setSent] = useState(false);
  return (
    <Modal title="Order" onClose={onClose}>
      {sent ? (
        <p>Your order has been placed.</p>
      ) : (
        <form
          onSubmit={(event) => {
            event.preventDefault();
            setSent(true);
          }}
        >
          <label>
            Company <input name="company" />
          </label>
          <button type="submit">Send</button>
        </form>
      )}
    </Modal>
  );
}

describe('Modal', () => {
  afterEach(cleanup);

  test('opens on its first field, and keeps the keyboard once a step replaces the focused element', async () => {
    const user = userEvent.setup();
    let closed = 0;
    render(<TwoSteps onClose={() => closed++} />);
    expect(document.activeElement).toBe(screen.getByRole('textbox', { name: 'Company' }));
    await user.keyboard('ACME{Enter}');
    expect(screen.getByText('Your order has been placed.')).toBeTruthy();
    // The form (and the focused field) are gone: focus is back in the dialog, so Escape still closes it.
    expect(document.activeElement).toBe(screen.getByRole('dialog', { name: 'Order' }));
    await user.keyboard('{Escape}');
    expect(closed).toBe(1);
  });

  test('a dialog without fields opens on itself, its title read first; Tab then reaches its buttons', async () => {
    const user = userEvent.setup();
    render(
      <>
        <button type="button">On the page behind</button>
        <Modal
          title="Delete result"
          onClose={() => undefined}
          actions={<button type="button">Delete</button>}
        >
          <p>The result will be deleted.</p>
        </Modal>
      </>,
    );
    expect(document.activeElement).toBe(screen.getByRole('dialog', { name: 'Delete result' }));
    await user.tab();
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Close' }));
    // Focus stays in the dialog both ways: back from its start to its last button.
    screen.getByRole('dialog', { name: 'Delete result' }).focus();
    await user.tab({ shift: true });
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Delete' }));
  });
});
