import { BANNER_AUTO_HIDE_MS } from '@osint/contract/constants';
import { INVITE_MESSAGES, TEAM_MESSAGES } from '@osint/contract/team';
import { act, cleanup, render, screen } from '@testing-library/react';
import { readFileSync } from 'node:fs';
import { useEffect } from 'react';
import path from 'node:path';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { BannerProvider, useBanner, type BannerMessage } from '../../src/components/message-banner';
import { ToastRegion } from '../../src/components/toast-region';

afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

/** What a page does: shows a message through the banner context. */
const banner: { show?: (message: BannerMessage) => void } = {};
const show = (message: BannerMessage) => banner.show!(message);
function Trigger() {
  const { showBanner } = useBanner();
  useEffect(() => {
    banner.show = showBanner;
  }, [showBanner]);
  return null;
}

function renderRegion() {
  render(
    <BannerProvider>
      <ToastRegion />
      <Trigger />
    </BannerProvider>,
  );
  return screen.getByRole('region', { name: 'Notifications' });
}

describe('the toast region (issue 15 item 6)', () => {
  test('its live regions exist before any message, so the first message is announced', () => {
    const region = renderRegion();
    const live = [...region.querySelectorAll('[aria-live]')].map((el) => el.getAttribute('aria-live'));
    expect(live).toEqual(['polite', 'assertive']);
    expect(region.textContent).toBe('');
  });

  test('a success goes to the polite region, a failure to the assertive one, each read once', () => {
    const region = renderRegion();
    act(() => show({ message: INVITE_MESSAGES.success, type: 'success' }));
    const polite = region.querySelector('[aria-live="polite"]')!;
    const assertive = region.querySelector('[aria-live="assertive"]')!;
    expect(polite.textContent).toContain('Invitation sent successfully.');
    expect(assertive.textContent).toBe('');
    // No nested status/alert role inside the live region: it would be announced twice.
    expect(region.querySelector('[role="status"], [role="alert"]')).toBeNull();

    act(() => show({ message: TEAM_MESSAGES.giveFailure, type: 'danger' }));
    expect(assertive.textContent).toContain(TEAM_MESSAGES.giveFailure);
    expect(polite.textContent).toBe('');
  });

  test('closes by its button and by itself after the auto-hide delay', () => {
    vi.useFakeTimers();
    const region = renderRegion();
    act(() => show({ message: INVITE_MESSAGES.success, type: 'success' }));
    act(() => screen.getByRole('button', { name: 'Close message' }).click());
    expect(region.textContent).toBe('');
    act(() => show({ message: INVITE_MESSAGES.success, type: 'success' }));
    act(() => vi.advanceTimersByTime(BANNER_AUTO_HIDE_MS));
    expect(region.textContent).toBe('');
  });

  test('is fixed below the 68 px sticky header and stacked above it and above dialogs', () => {
    // jsdom lays nothing out: the rule itself is read (the browser test checks the drawn position).
    const css = readFileSync(path.join(import.meta.dirname, '../../src/components/toast-region.css'), 'utf8');
    const rule = /\.toast-region \{([^}]*)\}/.exec(css)![1]!;
    expect(rule).toMatch(/position: fixed;/);
    expect(rule).toMatch(/top: calc\(68px \+/);
    const header = readFileSync(path.join(import.meta.dirname, '../../src/styles/global.css'), 'utf8');
    const headerZ = Number(/\.site-header \{[^}]*z-index: (\d+);/.exec(header)![1]);
    const backdropZ = Number(/\.modal-backdrop \{[^}]*z-index: (\d+);/.exec(header)![1]);
    expect(Number(/z-index: (\d+);/.exec(rule)![1])).toBeGreaterThan(Math.max(headerZ, backdropZ));
  });
});
