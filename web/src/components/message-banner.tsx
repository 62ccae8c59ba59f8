import { BANNER_AUTO_HIDE_MS } from '@osint/contract/constants';
import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import './message-banner.css';

export type BannerType = 'info' | 'success' | 'danger' | 'neutral';
export type BannerIcon = 'info' | 'success' | 'email' | 'time';

/** Spec 000 §3 "Banner message". A static banner stays until replaced or closed. */
export interface BannerMessage {
  message: string;
  additionalMessage?: string;
  type: BannerType;
  icon?: BannerIcon;
  id?: string;
  static?: boolean;
}

interface BannerContextValue {
  banner: BannerMessage | undefined;
  showBanner(message: BannerMessage): void;
  hideBanner(): void;
}

const BannerContext = createContext<BannerContextValue | undefined>(undefined);

export function BannerProvider({ children }: { children: ReactNode }) {
  const [banner, setBanner] = useState<BannerMessage>();
  const hideBanner = useCallback(() => setBanner(undefined), []);
  useEffect(() => {
    if (!banner || banner.static) return;
    const timer = setTimeout(hideBanner, BANNER_AUTO_HIDE_MS);
    return () => clearTimeout(timer);
  }, [banner, hideBanner]);
  const value = useMemo(() => ({ banner, showBanner: setBanner, hideBanner }), [banner, hideBanner]);
  return <BannerContext.Provider value={value}>{children}</BannerContext.Provider>;
}

export function useBanner(): BannerContextValue {
  const value = useContext(BannerContext);
  if (!value) throw new Error('useBanner outside BannerProvider');
  return value;
}

const ICON_PATHS: Record<BannerIcon, string> = {
  info: 'M12 2a10 10 0 1 0 0 20 10 10 0 0 0 0-20Zm1 15h-2v-6h2v6Zm0-8h-2V7h2v2Z',
  success: 'M12 2a10 10 0 1 0 0 20 10 10 0 0 0 0-20Zm-1.5 14.5-4-4 1.4-1.4 2.6 2.6 5.6-5.6 1.4 1.4-7 7Z',
  email:
    'M3 5h18a1 1 0 0 1 1 1v12a1 1 0 0 1-1 1H3a1 1 0 0 1-1-1V6a1 1 0 0 1 1-1Zm9 7.2L4 7.3V17h16V7.3l-8 4.9ZM19.2 7H4.8l7.2 4.4L19.2 7Z',
  time: 'M12 2a10 10 0 1 0 0 20 10 10 0 0 0 0-20Zm1 10.4 3.5 2.1-1 1.7L11 13V7h2v5.4Z',
};

export function BannerIconSvg({ icon }: { icon: BannerIcon }) {
  return (
    <svg className="banner__icon" viewBox="0 0 24 24" aria-hidden="true">
      <path d={ICON_PATHS[icon]} fill="currentColor" />
    </svg>
  );
}

/**
 * The banner in the page flow; `role=alert` for errors so screen readers announce them at once. Inside a
 * live region that already announces it (the toast region), `announce={false}` leaves the role out so it
 * is not read twice.
 */
export function MessageBanner({
  message,
  onClose,
  announce = true,
}: {
  message: BannerMessage;
  onClose?: () => void;
  announce?: boolean;
}) {
  const icon = message.icon ?? (message.type === 'success' ? 'success' : 'info');
  const role = message.type === 'danger' ? 'alert' : 'status';
  return (
    <div
      className={`banner banner--${message.type}`}
      role={announce ? role : undefined}
      data-banner-id={message.id}
    >
      <BannerIconSvg icon={icon} />
      <div className="banner__text">
        <p className="banner__message">{message.message}</p>
        {message.additionalMessage && <p className="banner__additional">{message.additionalMessage}</p>}
      </div>
      {onClose && (
        <button type="button" className="banner__close" onClick={onClose} aria-label="Close message">
          ×
        </button>
      )}
    </div>
  );
}
