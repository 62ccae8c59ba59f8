import { NEWSLETTER_MESSAGES } from '@osint/contract/constants';
import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { Button } from '../../components/button.tsx';
import { useBanner } from '../../components/message-banner.tsx';
import { api } from '../../lib/api-client.ts';
import { useSession } from '../../lib/session.tsx';

export const COMPANY = {
  name: 'OSINT Platform Ltd.',
  address: ['Rothschild Boulevard 22', 'Tel Aviv-Yafo 6688218', 'Israel'],
  email: 'contact@osint-platform.example',
};

const SOCIAL_LINKS = [
  {
    label: 'LinkedIn',
    href: 'https://www.linkedin.com/',
    path: 'M4 9h3v11H4zM5.5 3.5a1.75 1.75 0 1 1 0 3.5 1.75 1.75 0 0 1 0-3.5zM10 9h3v1.6c.5-.9 1.7-1.8 3.4-1.8 3.2 0 3.6 2.1 3.6 4.8V20h-3v-5.6c0-1.4 0-3-1.9-3s-2.1 1.4-2.1 2.9V20h-3z',
  },
  {
    label: 'X',
    href: 'https://x.com/',
    path: 'M4 4h4.6l3.6 5.1L16.6 4H20l-6.2 7.1L20.5 20h-4.6l-3.9-5.5L7.2 20H3.8l6.6-7.5z',
  },
  {
    label: 'GitHub',
    href: 'https://github.com/',
    path: 'M12 2a10 10 0 0 0-3.2 19.5c.5.1.7-.2.7-.5v-1.7c-2.8.6-3.4-1.2-3.4-1.2-.5-1.2-1.1-1.5-1.1-1.5-.9-.6.1-.6.1-.6 1 .1 1.5 1 1.5 1 .9 1.5 2.4 1.1 2.9.8.1-.7.4-1.1.6-1.3-2.2-.3-4.6-1.1-4.6-5a3.9 3.9 0 0 1 1-2.7c-.1-.3-.4-1.3.1-2.7 0 0 .8-.3 2.8 1a9.6 9.6 0 0 1 5 0c2-1.3 2.8-1 2.8-1 .5 1.4.2 2.4.1 2.7a3.9 3.9 0 0 1 1 2.7c0 3.9-2.4 4.7-4.6 5 .4.3.7.9.7 1.9V21c0 .3.2.6.7.5A10 10 0 0 0 12 2z',
  },
];

/** Footer of every layout but admin: address, newsletter, social links, legal links by layout, copyright. */
export function SiteFooter({ legalBase }: { legalBase: '' | '/home' }) {
  const { session, refresh } = useSession();
  const { showBanner } = useBanner();
  const navigate = useNavigate();
  const [subscribing, setSubscribing] = useState(false);

  const subscribe = async () => {
    if (!session) {
      navigate('/login');
      return;
    }
    setSubscribing(true);
    try {
      await api('/user/subscribe_newsletter', { method: 'POST', body: { subscribed: true } });
      await refresh();
      showBanner({ message: NEWSLETTER_MESSAGES.success, type: 'success', icon: 'email' });
    } catch {
      showBanner({ message: NEWSLETTER_MESSAGES.failure, type: 'danger' });
    } finally {
      setSubscribing(false);
    }
  };

  return (
    <footer className="site-footer">
      <div className="container site-footer__grid">
        <div className="site-footer__brand">
          <p className="site-footer__name">{COMPANY.name}</p>
          <p className="site-footer__tagline">
            Organising open-source digital data into structured, searchable identity intelligence for
            institutional decision-making.
          </p>
          <address className="site-footer__address">
            {COMPANY.address.map((line) => (
              <span key={line}>{line}</span>
            ))}
            <a href={`mailto:${COMPANY.email}`}>{COMPANY.email}</a>
          </address>
        </div>
        <div className="site-footer__newsletter">
          <p className="site-footer__heading">Newsletter</p>
          <p>Be notified by e-mail when your AI data extractor analyses are complete.</p>
          {session?.user.newsletter ? (
            <p data-testid="footer-newsletter-state">
              You are subscribed. <Link to="/account">Unsubscribe in your account settings</Link>
            </p>
          ) : (
            <Button variant="light" loading={subscribing} onClick={subscribe}>
              Subscribe
            </Button>
          )}
        </div>
        <div className="site-footer__links">
          <p className="site-footer__heading">Legal</p>
          <Link to={`${legalBase}/privacy-policy`}>Privacy Policy</Link>
          <Link to={`${legalBase}/terms-of-service`}>Terms of Service</Link>
          <ul className="site-footer__social" aria-label="Social media">
            {SOCIAL_LINKS.map((link) => (
              <li key={link.label}>
                <a href={link.href} target="_blank" rel="noreferrer noopener" aria-label={link.label}>
                  <svg viewBox="0 0 24 24" aria-hidden="true">
                    <path d={link.path} fill="currentColor" />
                  </svg>
                </a>
              </li>
            ))}
          </ul>
        </div>
      </div>
      <div className="container site-footer__bottom">
        © {new Date().getFullYear()} {COMPANY.name} All rights reserved.
      </div>
    </footer>
  );
}
