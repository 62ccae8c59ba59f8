import { MessageBanner, useBanner } from './message-banner.tsx';
import './toast-region.css';

/**
 * The app-wide message (success or failure of an action) as a toast: fixed in the viewport below the
 * sticky header, so it is seen wherever the page is scrolled. The two live regions are always in the
 * document — screen readers announce only changes inside a region that already exists — and a failure
 * goes to the assertive one so it interrupts, a success or notice to the polite one.
 */
export function ToastRegion() {
  const { banner, hideBanner } = useBanner();
  const urgent = banner?.type === 'danger';
  return (
    <section className="toast-region" aria-label="Notifications">
      <div className="toast-region__live" aria-live="polite" aria-atomic="true">
        {banner && !urgent && <MessageBanner message={banner} onClose={hideBanner} announce={false} />}
      </div>
      <div className="toast-region__live" aria-live="assertive" aria-atomic="true">
        {banner && urgent && <MessageBanner message={banner} onClose={hideBanner} announce={false} />}
      </div>
    </section>
  );
}
