import { useEffect, type MouseEvent } from 'react';
import { PageHeader } from './page-header';
import { LEGAL_VERSION_DATE, LEGAL_VERSION_ISO } from './promo-constants';
import { PrinterIcon } from './promo-icons';
import { RichText, type RichBlock } from './rich-text';
import { isPlainLeftClick, scrollToSection } from './scroll-to-section';
import './promo.css';

export interface LegalSection {
  // Used as the anchor of the table of contents, so it must be unique within the document.
  id: string;
  // Numbering as printed: '1.', '2.', … for clauses, 'Annex I' for annexes.
  label: string;
  heading: string;
  content: readonly RichBlock[];
}

export interface LegalDocumentContent {
  title: string;
  summary: string;
  intro: readonly RichBlock[];
  sections: readonly LegalSection[];
}

interface LegalDocumentProps {
  document: LegalDocumentContent;
}

export function LegalDocument({ document: content }: LegalDocumentProps) {
  const tocId = `${content.sections[0]?.id ?? 'legal'}-toc`;

  // A link such as /terms-of-service#terms-refunds must open at that clause even though the page renders
  // after the browser has already tried to resolve the fragment.
  useEffect(() => {
    const id = decodeURIComponent(window.location.hash.slice(1));
    if (id && content.sections.some((section) => section.id === id)) scrollToSection(id);
  }, [content]);

  const onTocClick = (event: MouseEvent<HTMLAnchorElement>, id: string) => {
    if (!isPlainLeftClick(event)) return;
    event.preventDefault();
    scrollToSection(id);
  };

  return (
    <div className="promo-page promo-legal">
      <PageHeader eyebrow="Legal" title={content.title} lead={content.summary}>
        <div className="promo-legal-meta">
          <p className="promo-legal-version">
            Version of <time dateTime={LEGAL_VERSION_ISO}>{LEGAL_VERSION_DATE}</time>
          </p>
          <button type="button" className="btn btn-light promo-legal-print" onClick={() => window.print()}>
            <PrinterIcon />
            Print or save as PDF
          </button>
        </div>
      </PageHeader>

      <div className="container promo-legal-layout">
        <nav className="promo-legal-toc" aria-labelledby={tocId}>
          <h2 id={tocId} className="promo-legal-toc-title">
            Contents
          </h2>
          <ol>
            {content.sections.map((section) => (
              <li key={section.id}>
                <a
                  href={`#${section.id}`}
                  data-annex={/^\d/.test(section.label) ? undefined : ''}
                  onClick={(event) => onTocClick(event, section.id)}
                >
                  <span className="promo-legal-toc-label">{section.label}</span>
                  <span>{section.heading}</span>
                </a>
              </li>
            ))}
          </ol>
        </nav>

        <article className="promo-legal-body" aria-label={content.title}>
          <RichText blocks={content.intro} className="promo-legal-intro promo-prose" />
          {content.sections.map((section) => (
            <section
              key={section.id}
              id={section.id}
              className="promo-legal-section promo-anchor-target"
              aria-labelledby={`${section.id}-heading`}
              tabIndex={-1}
            >
              <h2 id={`${section.id}-heading`} className="promo-legal-heading">
                <span className="promo-legal-label">{section.label}</span> {section.heading}
              </h2>
              <RichText blocks={section.content} className="promo-prose" />
            </section>
          ))}
        </article>
      </div>
    </div>
  );
}
