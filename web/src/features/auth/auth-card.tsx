import { useId, type ReactNode } from 'react';
import './auth.css';

export type AuthIconName = 'lock' | 'email' | 'success' | 'warning' | 'organization' | 'key';

const ICON_PATHS: Record<AuthIconName, ReactNode> = {
  lock: (
    <>
      <rect x="5" y="10.5" width="14" height="10" rx="2" />
      <path d="M8 10.5V7.5a4 4 0 0 1 8 0v3" />
      <path d="M12 14.5v2" />
    </>
  ),
  key: (
    <>
      <circle cx="8" cy="15" r="4" />
      <path d="m11 12 8-8m-3 3 2 2m-4 0 2 2" />
    </>
  ),
  email: (
    <>
      <rect x="3" y="5" width="18" height="14" rx="2" />
      <path d="m3.5 6.5 8.5 6.5 8.5-6.5" />
    </>
  ),
  success: (
    <>
      <circle cx="12" cy="12" r="9" />
      <path d="m8 12.5 2.8 2.8L16.5 9.5" />
    </>
  ),
  warning: (
    <>
      <path d="M12 3.5 2.8 19.5h18.4L12 3.5Z" />
      <path d="M12 10v4m0 3v.01" />
    </>
  ),
  organization: (
    <>
      <path d="M4 20.5V6.5l8-3 8 3v14" />
      <path d="M2.5 20.5h19M9 20.5v-4h6v4M8.5 9.5h1m5 0h1m-7 3.5h1m5 0h1" />
    </>
  ),
};

/** Line icons of the auth screens, drawn with the current colour. */
export function AuthIcon({ name }: { name: AuthIconName }) {
  return (
    <svg
      className="auth-icon"
      viewBox="0 0 24 24"
      fill="none"
      stroke="currentColor"
      strokeWidth="1.7"
      strokeLinecap="round"
      strokeLinejoin="round"
      aria-hidden="true"
    >
      {ICON_PATHS[name]}
    </svg>
  );
}

interface AuthCardProps {
  title: string;
  lead?: ReactNode;
  icon?: AuthIconName;
  /** Colours the icon badge: neutral for forms, success/danger for outcome screens. */
  tone?: 'brand' | 'success' | 'danger';
  children?: ReactNode;
  footer?: ReactNode;
}

/**
 * The centred card every guest page shares, so login, registration and the password flows read as one
 * product: an icon badge, one h1, a short lead, the body and an optional footer with secondary links.
 */
export function AuthCard({ title, lead, icon, tone = 'brand', children, footer }: AuthCardProps) {
  const titleId = useId();
  return (
    <section className="card auth-card" aria-labelledby={titleId}>
      <header className="auth-card-header">
        {icon && (
          <span className={`auth-card-badge auth-card-badge--${tone}`}>
            <AuthIcon name={icon} />
          </span>
        )}
        <h1 className="auth-title" id={titleId}>
          {title}
        </h1>
        {lead && <div className="auth-lead">{lead}</div>}
      </header>
      {children}
      {footer && <footer className="auth-card-footer">{footer}</footer>}
    </section>
  );
}
