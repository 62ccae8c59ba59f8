import type { ComponentType } from 'react';
import { Link } from 'react-router';
import { AccessCta } from './access-cta';
import { PageHeader } from './page-header';
import {
  DatabaseIcon,
  EyeOffIcon,
  FileTextIcon,
  MethodIcon,
  ShieldCheckIcon,
  UsersIcon,
} from './promo-icons';
import { COMPANY_NAME, INACTIVITY_RETENTION_DAYS, PRODUCT_NAME, TRIAL_DAYS } from './promo-constants';
import './promo.css';

interface Reason {
  title: string;
  text: string;
  Icon: ComponentType<{ className?: string }>;
}

const REASONS: readonly Reason[] = [
  {
    title: 'Verified users only',
    text: 'Every organization is reviewed by our team before its first login, and only corporate e-mail addresses are accepted. Your peers on the platform are institutions like yours.',
    Icon: ShieldCheckIcon,
  },
  {
    title: 'Privacy by design',
    text: `Uploaded photos are not stored, results are deleted after ${INACTIVITY_RETENTION_DAYS} days of inactivity, and nobody is tracked in real time.`,
    Icon: EyeOffIcon,
  },
  {
    title: 'Findings you can explain',
    text: 'Every flag of the AI data extractor comes with its evidence: the sentence on the page or the watch-list entry it is based on.',
    Icon: MethodIcon,
  },
  {
    title: 'A constantly growing index',
    text: 'Our own crawler keeps indexing publicly available websites, and each result shows when it was first indexed.',
    Icon: DatabaseIcon,
  },
  {
    title: 'Reports for the case file',
    text: 'Turn a saved search or an analysis into a PDF report that can be shared with colleagues, supervisors or authorities.',
    Icon: FileTextIcon,
  },
  {
    title: 'Built for teams',
    text: 'Seat-based licences, invitations by corporate e-mail and an owner who decides who has access at any moment.',
    Icon: UsersIcon,
  },
];

const STEPS = [
  { title: 'Photo', text: 'You upload a photo and choose a face.' },
  { title: 'Matches', text: 'We find where similar faces were published.' },
  { title: 'Context', text: 'AI reads the pages around each match.' },
  { title: 'Report', text: 'You review the evidence and export a PDF.' },
];

interface AboutPageProps {
  // Decides whether the closing call-to-action opens the product or the registration form.
  signedIn?: boolean;
}

export function AboutPage({ signedIn = false }: AboutPageProps) {
  return (
    <div className="promo-page">
      <PageHeader
        eyebrow="About us"
        title="Identity intelligence for institutions"
        lead="We organise open-source digital data into structured, searchable identity intelligence for institutional decision-making."
      />

      <section className="promo-section" aria-labelledby="promo-what-title">
        <div className="container promo-split">
          <div className="promo-split-copy promo-prose">
            <h2 id="promo-what-title" className="promo-section-title">
              What is OSINT exactly?
            </h2>
            <p className="promo-lead">
              Open-source intelligence, or OSINT, is knowledge gained from information that is publicly
              available: news articles, company pages, public registers, blogs and many other websites.
            </p>
            <p>
              Our platform, {PRODUCT_NAME}, is a face search engine combined with context analysis. You upload
              a photo, and it finds where visually similar faces have been published on the open web. Our AI
              data extractor then reads the pages around each match and reports what they say: the names used,
              links to criminal activity, political office or sanctions lists, and the people seen alongside.
            </p>
            <p>
              What used to take an analyst days of manual searching now takes minutes, and every finding can
              be traced back to its public source.
            </p>
          </div>
          <ol className="promo-flow" aria-label={`How ${PRODUCT_NAME} works`}>
            {STEPS.map((step, index) => (
              <li key={step.title} className="promo-flow-step">
                <span className="promo-flow-number" aria-hidden="true">
                  {index + 1}
                </span>
                <span>
                  <strong>{step.title}</strong>
                  {step.text}
                </span>
              </li>
            ))}
          </ol>
        </div>
      </section>

      <section className="promo-section promo-section-muted" aria-labelledby="promo-company-title">
        <div className="container promo-split">
          <div className="promo-split-copy promo-prose">
            <h2 id="promo-company-title" className="promo-section-title">
              Who we are
            </h2>
            <p>
              {COMPANY_NAME} is a limited liability company founded in Tel Aviv, Israel. Our team brings
              together engineers, data scientists and specialists in investigations and compliance who have
              seen, from the inside, how much time is lost searching for the story behind a single photo.
            </p>
            <p>
              We build and run the platform ourselves, from the crawler that indexes public websites to the
              face recognition models and the analysis of page content. Our support team works from Israel and
              Georgia, and the platform runs on servers in the United States.
            </p>
          </div>
          <ul className="promo-fact-list">
            <li>
              <strong>Tel Aviv</strong>
              <span>where the company was founded</span>
            </li>
            <li>
              <strong>LLC</strong>
              <span>a limited liability company under Israeli law</span>
            </li>
            <li>
              <strong>2 support hubs</strong>
              <span>in Israel and Georgia</span>
            </li>
          </ul>
        </div>
      </section>

      <section className="promo-section" aria-labelledby="promo-purpose-title">
        <div className="container">
          <div className="promo-narrow promo-prose">
            <h2 id="promo-purpose-title" className="promo-section-title">
              Our purpose
            </h2>
            <p className="promo-lead">
              To give the institutions that protect the public the same reach into open sources as the people
              they investigate, without compromising the privacy of everyone else.
            </p>
            <p>
              Fraud, trafficking, money laundering and sanctions evasion leave traces in public view. Finding
              them in time should not depend on the size of an investigation team. At the same time, face
              search is a powerful technology, and we believe it belongs only in accountable hands. That is
              why {PRODUCT_NAME} is business-only and invite-only, why we verify every organization manually,
              and why we do not store the photos our customers upload.
            </p>
          </div>
        </div>
      </section>

      <section className="promo-section promo-section-muted" aria-labelledby="promo-why-title">
        <div className="container">
          <header className="promo-section-head">
            <p className="promo-eyebrow">Our difference</p>
            <h2 id="promo-why-title" className="promo-section-title">
              Why {PRODUCT_NAME}?
            </h2>
            <p className="promo-lead">
              Six reasons investigators, compliance officers and public bodies choose us.
            </p>
          </header>
          <ul className="promo-card-grid">
            {REASONS.map(({ title, text, Icon }) => (
              <li key={title} className="promo-card">
                <span className="promo-feature-icon">
                  <Icon />
                </span>
                <h3 className="promo-card-title">{title}</h3>
                <p>{text}</p>
              </li>
            ))}
          </ul>
        </div>
      </section>

      <section className="promo-section" aria-labelledby="promo-about-cta-title">
        <div className="container">
          <div className="promo-banner">
            <div>
              <h2 id="promo-about-cta-title" className="promo-banner-title">
                See it on your own cases
              </h2>
              <p>Start with a {TRIAL_DAYS}-day free trial. No credit card required.</p>
            </div>
            <div className="promo-banner-actions">
              <AccessCta signedIn={signedIn} className="btn btn-light promo-btn-lg" />
              <Link to="/faq" className="promo-text-link promo-text-link-on-night">
                Read the FAQ
              </Link>
            </div>
          </div>
        </div>
      </section>
    </div>
  );
}
