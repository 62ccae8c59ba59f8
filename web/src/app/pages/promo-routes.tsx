import { AboutPage } from '../../features/promo/about-page.tsx';
import { ContactHeading } from '../../features/promo/contact-heading.tsx';
import { FaqList } from '../../features/promo/faq-list.tsx';
import { FaqPage } from '../../features/promo/faq-page.tsx';
import { HomePage } from '../../features/promo/home-page.tsx';
import { PrivacyPolicyPage } from '../../features/promo/privacy-policy-page.tsx';
import { TermsOfServicePage } from '../../features/promo/terms-of-service-page.tsx';
import { ContactForm } from '../../features/support/contact-form.tsx';
import { useSession } from '../../lib/session.tsx';

// Promo pages composed from features; the app level is the only place that knows the session.

export function IndexRoute() {
  const { session } = useSession();
  return <HomePage signedIn={Boolean(session)} />;
}

export function AboutRoute() {
  const { session } = useSession();
  return <AboutPage signedIn={Boolean(session)} />;
}

export function FaqRoute() {
  return <FaqPage />;
}

export function ContactRoute() {
  const { session } = useSession();
  return (
    <>
      <ContactHeading />
      <div className="container contact-route__form">
        <ContactForm lockedEmail={session?.user.email} />
      </div>
      <FaqList showTitle />
    </>
  );
}

export function PrivacyPolicyRoute() {
  return <PrivacyPolicyPage />;
}

export function TermsOfServiceRoute() {
  return <TermsOfServicePage />;
}
