import { useRef, useState, type FocusEvent, type KeyboardEvent, type ReactNode } from 'react';
import { Link, NavLink, useLocation } from 'react-router';

export interface MenuItem {
  to: string;
  label: string;
  /** Exact match only (Home would otherwise stay active under every path). */
  end?: boolean;
  marker?: boolean;
  /** What the marker says to screen readers (default: new results). */
  markerLabel?: string;
}

function Logo() {
  return (
    <svg className="logo__mark" viewBox="0 0 32 32" aria-hidden="true">
      <rect width="32" height="32" rx="8" fill="currentColor" opacity="0.12" />
      <circle cx="14" cy="14" r="7" fill="none" stroke="#14b8a6" strokeWidth="3" />
      <path d="M19 19l7 7" stroke="#3b82f6" strokeWidth="3.5" strokeLinecap="round" />
    </svg>
  );
}

/**
 * The header of every layout: logo (its target depends on the layout), the menu, and a burger button
 * that opens the menu on small screens and closes it on every route change.
 */
export function SiteHeader({
  logoTo,
  items,
  actions,
  variant = 'night',
}: {
  logoTo: string;
  items: MenuItem[];
  actions?: ReactNode;
  variant?: 'night' | 'admin';
}) {
  const location = useLocation();
  // The menu is open for the path it was opened on, so any route change closes it.
  const [openedOn, setOpenedOn] = useState<string | null>(null);
  const menuOpen = openedOn === location.pathname;
  const burger = useRef<HTMLButtonElement>(null);
  // Escape closes the open menu from the burger or from any of its links, and gives the burger the focus.
  const closeOnEscape = (event: KeyboardEvent) => {
    if (event.key !== 'Escape' || !menuOpen) return;
    setOpenedOn(null);
    burger.current?.focus();
  };
  // On small screens the open menu covers the page: focus moving on to an element past it (Tab from its
  // last item) closes it, so that nothing is focused behind it. A blur to nowhere (another window, a click
  // that focuses nothing, as Safari's on links) leaves it open: closing then would swallow the click.
  const closeWhenFocusLeaves = (event: FocusEvent) => {
    const next = event.relatedTarget as Node | null;
    if (menuOpen && next !== null && !event.currentTarget.contains(next)) setOpenedOn(null);
  };

  return (
    <header
      className={`site-header site-header--${variant}`}
      onKeyDown={closeOnEscape}
      onBlur={closeWhenFocusLeaves}
    >
      <div
        className={
          variant === 'admin' ? 'site-header__inner site-header__inner--wide' : 'site-header__inner container'
        }
      >
        <Link to={logoTo} className="logo" aria-label="OSINT Platform — go to start page">
          <Logo />
          <span className="logo__text">
            OSINT<span className="logo__accent">Platform</span>
          </span>
        </Link>
        <button
          ref={burger}
          type="button"
          className="burger"
          aria-label={menuOpen ? 'Close menu' : 'Open menu'}
          aria-expanded={menuOpen}
          aria-controls="main-menu"
          onClick={() => setOpenedOn(menuOpen ? null : location.pathname)}
        >
          <span className={`burger__lines${menuOpen ? ' burger__lines--open' : ''}`} />
        </button>
        <nav
          id="main-menu"
          className={`main-menu${menuOpen ? ' main-menu--open' : ''}`}
          aria-label="Main menu"
        >
          <ul className="main-menu__list">
            {items.map((item) => (
              <li key={item.to}>
                <NavLink to={item.to} end={item.end ?? false} className="main-menu__link">
                  {item.label}
                  {item.marker && (
                    <>
                      {/* The dot is for the eye; the words are in the link's name for everyone else. */}
                      <span className="main-menu__marker" aria-hidden="true" />
                      <span className="visually-hidden">{item.markerLabel ?? 'new results'}</span>
                    </>
                  )}
                </NavLink>
              </li>
            ))}
          </ul>
          {actions && <div className="main-menu__actions">{actions}</div>}
        </nav>
      </div>
    </header>
  );
}
