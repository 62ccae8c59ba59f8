import { Link } from 'react-router';
import { FaqList } from './faq-list';
import { PageHeader } from './page-header';
import './promo.css';

interface FaqPageProps {
  // The first question opens by default so the page never looks like a wall of closed bars.
  defaultOpenId?: string;
}

export function FaqPage({ defaultOpenId = 'what-is-osint' }: FaqPageProps) {
  return (
    <div className="promo-page">
      <PageHeader
        eyebrow="Help centre"
        title="FAQ"
        lead="Everything organizations ask us before and after they join: access, trial, pricing, privacy and how the search works."
      />
      <FaqList defaultOpenId={defaultOpenId} />
      <div className="container promo-faq-more-wrap">
        <aside className="promo-faq-more" aria-labelledby="promo-faq-more-title">
          <div>
            <h2 id="promo-faq-more-title" className="promo-faq-more-title">
              Still have a question?
            </h2>
            <p>
              Write to our team through the contact form. Every message is answered by a person, not a bot.
            </p>
          </div>
          <Link to="/contact" className="btn btn-primary">
            CONTACT US
          </Link>
        </aside>
      </div>
    </div>
  );
}
