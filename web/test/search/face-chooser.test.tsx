import type { DetectedFace } from '@osint/contract/search';
import { cleanup, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { FaceChooser } from '../../src/features/search/face-chooser';

const minorFace: DetectedFace = {
  hash: 'minor-1',
  base64: 'AAAA',
  box: { x: 10, y: 10, width: 200, height: 200 },
  small: false,
  possibleMinor: true,
  review: null,
};

afterEach(() => cleanup());

describe('FaceChooser with no face that can be chosen', () => {
  test('focus is in the dialog, Tab stays inside it and Escape closes it', async () => {
    const user = userEvent.setup();
    const onClose = vi.fn();
    render(
      <>
        <button type="button">Behind the overlay</button>
        <FaceChooser
          faces={[minorFace]}
          initiallySelected={[]}
          smallFaceCount={0}
          smallFaceSizes={[]}
          smallFaceBoxes={[]}
          minFaceSize={64}
          reliableFaceSize={128}
          minorsSearchable={false}
          onProceed={vi.fn()}
          onClose={onClose}
          onReviewRequested={vi.fn()}
        />
      </>,
    );
    const dialog = screen.getByRole('dialog', { name: 'Choose your face' });
    const blocked = screen.getByRole('button', { name: 'Face 1' });
    expect(blocked.getAttribute('aria-disabled')).toBe('true');
    // Still reachable by keyboard (its notice is its description), and pressing it selects nothing.
    expect(blocked).toHaveProperty('disabled', false);
    blocked.click();
    expect(blocked.getAttribute('aria-pressed')).toBe('false');
    expect(dialog.contains(document.activeElement)).toBe(true);

    const behind = screen.getByRole('button', { name: 'Behind the overlay' });
    for (let i = 0; i < 6; i += 1) {
      await user.tab();
      expect(dialog.contains(document.activeElement)).toBe(true);
      expect(document.activeElement).not.toBe(behind);
    }
    for (let i = 0; i < 6; i += 1) {
      await user.tab({ shift: true });
      expect(dialog.contains(document.activeElement)).toBe(true);
    }

    await user.keyboard('{Escape}');
    expect(onClose).toHaveBeenCalledTimes(1);
  });
});
