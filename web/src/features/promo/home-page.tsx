import type { ComponentType, MouseEvent } from 'react';
import { ANNUAL_DISCOUNT_PERCENT, ANNUAL_MONTHS, computePrice, formatUsd } from '@osint/contract/pricing';
import { Link } from 'react-router';
import { AccessCta } from './access-cta';
import {
  BenefitIcon,
  CheckIcon,
  ConnectionIcon,
  CriminalIcon,
  ExternalLinkIcon,
  FaceSearchIcon,
  GlobeIcon,
  MethodIcon,
  PhilosophyIcon,
  PoliticianIcon,
  ProblemIcon,
  SolutionIcon,
} from './promo-icons';
import { PRODUCT_NAME, PUBLIC_SEARCH_ENGINE_URL, TRIAL_DAYS } from './promo-constants';
import { isPlainLeftClick, scrollToSection } from './scroll-to-section';
import './promo.css';

interface Feature {
  title: string;
  text: string;
  Icon: ComponentType<{ className?: string }>;
}

const FEATURES: readonly Feature[] = [
  {
    title: 'Face search',
    text: 'Find where a face has been published across publicly available websites, with the source page and first-indexed date of every match.',
    Icon: FaceSearchIcon,
  },
  {
    title: 'Criminal detection',
    text: 'See whether the pages around a match connect the person to criminal proceedings, wanted notices or convictions.',
    Icon: CriminalIcon,
  },
  {
    title: 'Connection detection',
    text: 'Reveal the people someone appears with, and whether any of them is linked to criminal activity.',
    Icon: ConnectionIcon,
  },
  {
    title: 'Politician detection',
    text: 'Identify politically exposed persons and sanctions-list matches before they become a compliance problem.',
    Icon: PoliticianIcon,
  },
];

const AUDIENCES = [
  'Law enforcement',
  'Government agencies',
  'Banks and insurers',
  'Compliance teams',
  'NGOs',
  'Professional investigators',
];

interface Step {
  label: string;
  title: string;
  text: string;
  Icon: ComponentType<{ className?: string }>;
}

const STEPS: readonly Step[] = [
  {
    label: 'Problem',
    title: 'An unknown face stalls the case',
    text: 'A photo is often the only lead: a still from a camera, the ID of a new client, the picture behind a fraudulent profile. Searching the web for that face by hand takes days and rarely tells you who the person really is.',
    Icon: ProblemIcon,
  },
  {
    label: 'Solution',
    title: 'Search the open web by face',
    text: `${PRODUCT_NAME} compares the face with an index of images that our own crawler collects from publicly available websites, and shows you where it has been published.`,
    Icon: SolutionIcon,
  },
  {
    label: 'Method',
    title: 'Match first, then read the context',
    text: 'Faces are detected, compared and grouped when they are the same photo. Our AI data extractor then reads the pages around each match for names, criminal records, political exposure, sanctions and the people seen alongside, keeping the evidence for every finding.',
    Icon: MethodIcon,
  },
  {
    label: 'Benefit',
    title: 'Days of research in minutes',
    text: 'Your analysts receive a structured overview of sources, first-indexed dates, flags and connections, and export it as a PDF report ready for the case file.',
    Icon: BenefitIcon,
  },
  {
    label: 'Philosophy',
    title: 'Powerful, therefore restricted',
    text: 'Only verified organizations get access. Uploaded photos are not stored, nobody is tracked in real time, and every result supports human judgement instead of replacing it.',
    Icon: PhilosophyIcon,
  },
];

// A miniature of the product screen, drawn with SVG and CSS so the page needs no image files.
function HeroVisual() {
  return (
    <div className="promo-hero-visual" aria-hidden="true">
      <div className="promo-scan-card">
        <svg className="promo-scan-svg" viewBox="0 0 240 260">
          <rect className="promo-scan-bg" x="0" y="0" width="240" height="260" rx="14" />
          <path className="promo-scan-body" d="M34 260c6-58 44-82 86-82s80 24 86 82z" />
          <path className="promo-scan-neck" d="M102 160h36v28c-10 8-26 8-36 0z" />
          <ellipse className="promo-scan-head" cx="120" cy="108" rx="46" ry="58" />
          <path
            className="promo-scan-mesh"
            d="M98 100l22 24 22-24M98 100l8 44h28l8-44M106 144l14-20 14 20M98 100h44"
          />
          <g className="promo-scan-points">
            <circle cx="98" cy="100" r="3" />
            <circle cx="142" cy="100" r="3" />
            <circle cx="120" cy="124" r="3" />
            <circle cx="106" cy="144" r="3" />
            <circle cx="134" cy="144" r="3" />
          </g>
          <path className="promo-scan-frame" d="M62 56V40h18M160 40h18v16M178 162v16h-18M80 178H62v-16" />
        </svg>
        <span className="promo-scan-line" />
        <p className="promo-scan-caption">
          <span className="promo-pulse" />
          Face detected
        </p>
      </div>

      <div className="promo-result-card">
        <p className="promo-result-heading">
          Similar faces <span>3 sources</span>
        </p>
        <ul>
          {[
            { source: 'news portal', date: 'Mar 2023', score: 94 },
            { source: 'company website', date: 'Nov 2021', score: 88 },
            { source: 'public register', date: 'Jun 2019', score: 81 },
          ].map((row) => (
            <li key={row.source} className="promo-result-row">
              <span className="promo-result-thumb">
                <svg viewBox="0 0 32 32">
                  <circle cx="16" cy="12" r="6" />
                  <path d="M5 32c1-7 5-11 11-11s10 4 11 11z" />
                </svg>
              </span>
              <span className="promo-result-text">
                <span className="promo-result-source">{row.source}</span>
                <span className="promo-result-date">first indexed {row.date}</span>
              </span>
              <span className="promo-result-score">
                <span className="promo-result-bar" style={{ inlineSize: `${row.score}%` }} />
              </span>
            </li>
          ))}
        </ul>
      </div>

      <p className="promo-context-chip">
        <ConnectionIcon />
        Context analysis: 2 connections
      </p>
    </div>
  );
}

interface HomePageProps {
  signedIn: boolean;
  // Address of the provider's public face-search engine; the promo block links there in a new tab.
  publicSearchEngineUrl?: string;
}

/** The annual plan for one user, as the pricing module prices it (spec 000 §1: annual is 20% cheaper). */
const annual = computePrice({ kind: 'FIXED', users: 1, months: ANNUAL_MONTHS });

export function HomePage({ signedIn, publicSearchEngineUrl = PUBLIC_SEARCH_ENGINE_URL }: HomePageProps) {
  const onHowItWorks = (event: MouseEvent<HTMLAnchorElement>) => {
    if (!isPlainLeftClick(event)) return;
    event.preventDefault();
    scrollToSection('how-it-works');
  };

  return (
    <div className="promo-page promo-home">
      <section className="promo-hero" aria-labelledby="promo-hero-title">
        <div className="container promo-hero-inner">
          <div className="promo-hero-copy">
            <p className="promo-eyebrow promo-eyebrow-on-night">
              Face search and OSINT for verified organizations
            </p>
            <h1 id="promo-hero-title" className="promo-hero-title">
              Harness AI-driven insights.{' '}
              <span className="promo-hero-accent">Uncover the critical context</span> behind every face.
            </h1>
            <p className="promo-hero-lead">
              Upload a photo and see where that face appears across publicly available websites. Our AI then
              reads the pages around each match and tells you who the person is, who they were seen with, and
              whether they are linked to crime, politics or sanctions.
            </p>
            <ul className="promo-hero-points">
              <li>
                <CheckIcon />
                {TRIAL_DAYS}-day free trial, no credit card required
              </li>
              <li>
                <CheckIcon />
                For verified, vetted organizations only
              </li>
            </ul>
            <div className="promo-hero-actions">
              <AccessCta signedIn={signedIn} className="btn btn-primary promo-btn-lg" />
              <a
                href="#how-it-works"
                className="promo-text-link promo-text-link-on-night"
                onClick={onHowItWorks}
              >
                See how it works
              </a>
            </div>
            <p className="promo-hero-note">
              The trial searches like a paid plan but hides the source links of results: opening the original
              image and its page is for subscribers. It ends by itself, and nothing is billed unless you order
              a plan.
            </p>
            <p className="promo-hero-note">
              Annual is {ANNUAL_DISCOUNT_PERCENT}% cheaper: {ANNUAL_MONTHS} months for one user cost{' '}
              {formatUsd(annual.total)} USD instead of {formatUsd(annual.subtotal)} USD.
            </p>
          </div>
          <HeroVisual />
        </div>
        <div className="container">
          <ul className="promo-hero-stats">
            <li>
              <strong>Public web</strong>
              <span>indexed by our own crawler</span>
            </li>
            <li>
              <strong>Minutes</strong>
              <span>for a full AI context analysis</span>
            </li>
            <li>
              <strong>0</strong>
              <span>uploaded photos stored</span>
            </li>
          </ul>
        </div>
      </section>

      <section className="promo-section" aria-labelledby="promo-about-title">
        <div className="container promo-about-grid">
          <div className="promo-about-copy">
            <p className="promo-eyebrow">About us</p>
            <h2 id="promo-about-title" className="promo-section-title">
              What is OSINT exactly?
            </h2>
            <p className="promo-lead">
              {PRODUCT_NAME} is a face search engine combined with context analysis. It finds where a face has
              been published on the open web, then explains what those publications say about the person.
            </p>
            <p>
              Open-source intelligence is information anyone could find, if they knew where to look and had
              weeks to spare. We organise it into structured, searchable identity intelligence so that
              institutions can make decisions on facts rather than guesses.
            </p>
            <Link to="/about-us" className="btn btn-secondary promo-cta">
              READ MORE
            </Link>
          </div>
          <ul className="promo-feature-grid">
            {FEATURES.map(({ title, text, Icon }) => (
              <li key={title} className="promo-feature">
                <span className="promo-feature-icon">
                  <Icon />
                </span>
                <h3 className="promo-feature-title">{title}</h3>
                <p>{text}</p>
              </li>
            ))}
          </ul>
        </div>
        <div className="container">
          <div className="promo-audience">
            <p className="promo-audience-label">Built for</p>
            <ul>
              {AUDIENCES.map((audience) => (
                <li key={audience}>{audience}</li>
              ))}
            </ul>
          </div>
        </div>
      </section>

      <section
        id="how-it-works"
        className="promo-section promo-section-muted promo-anchor-target"
        aria-labelledby="promo-analysis-title"
        tabIndex={-1}
      >
        <div className="container promo-analysis-grid">
          <header className="promo-analysis-head">
            <p className="promo-eyebrow">How it works</p>
            <h2 id="promo-analysis-title" className="promo-section-title">
              Instant Photo-Driven Analysis
            </h2>
            <p className="promo-lead">
              From a single photo to a documented picture of who someone is, in minutes rather than days.
            </p>
          </header>
          <ol className="promo-steps">
            {STEPS.map(({ label, title, text, Icon }) => (
              <li key={label} className="promo-step">
                <span className="promo-step-icon">
                  <Icon />
                </span>
                <div className="promo-step-body">
                  <p className="promo-step-label">{label}</p>
                  <h3 className="promo-step-title">{title}</h3>
                  <p>{text}</p>
                </div>
              </li>
            ))}
          </ol>
        </div>
      </section>

      <section className="promo-section" aria-labelledby="promo-public-title">
        <div className="container">
          <div className="promo-public">
            <span className="promo-public-icon">
              <GlobeIcon />
            </span>
            <div className="promo-public-copy">
              <p className="promo-eyebrow promo-eyebrow-on-night">For individuals</p>
              <h2 id="promo-public-title" className="promo-public-title">
                Curious where your own face appears online?
              </h2>
              <p>
                {PRODUCT_NAME} is reserved for organizations. For personal use, our public face search engine,
                from the same team, lets anyone check where their photos have been published.
              </p>
            </div>
            <a
              className="btn btn-light promo-cta promo-btn-lg"
              href={publicSearchEngineUrl}
              target="_blank"
              rel="noopener noreferrer"
            >
              {/* The specification's label, word for word; shown in capitals like the page's other calls to action. */}
              <span className="promo-cta-caps">visit</span>
              <ExternalLinkIcon />
              <span className="promo-visually-hidden">
                {' '}
                the public face search engine (opens in a new tab)
              </span>
            </a>
          </div>
        </div>
      </section>
    </div>
  );
}
