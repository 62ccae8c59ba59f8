import { useId, useState } from 'react';
import { FAQ_GROUPS, type FaqEntry } from './faq-content';
import { ChevronDownIcon } from './promo-icons';
import { RichText } from './rich-text';
import './promo.css';

interface FaqItemProps {
  entry: FaqEntry;
  defaultOpen?: boolean;
  // The list sits under a page h1 on /faq and under an h2 "FAQ" on /contact; questions follow the outline.
  headingLevel?: 3 | 4;
}

export function FaqItem({ entry, defaultOpen = false, headingLevel = 3 }: FaqItemProps) {
  const [open, setOpen] = useState(defaultOpen);
  const baseId = useId();
  const buttonId = `${baseId}-question`;
  const panelId = `${baseId}-answer`;
  const Heading = headingLevel === 3 ? 'h3' : 'h4';

  return (
    <div className="promo-faq-item" data-open={open}>
      <Heading className="promo-faq-question">
        <button
          type="button"
          id={buttonId}
          className="promo-faq-toggle"
          aria-expanded={open}
          aria-controls={panelId}
          onClick={() => setOpen((value) => !value)}
        >
          <span>{entry.question}</span>
          <ChevronDownIcon className="promo-faq-chevron" />
        </button>
      </Heading>
      {/* Kept in the DOM while closed so the height can animate; CSS hides it from sight and from
          assistive technology (visibility: hidden) until it opens. */}
      <div id={panelId} role="region" aria-labelledby={buttonId} className="promo-faq-panel">
        <div className="promo-faq-panel-inner">
          <RichText blocks={entry.answer} className="promo-faq-answer promo-prose" />
        </div>
      </div>
    </div>
  );
}

interface FaqListProps {
  showTitle?: boolean;
  // Id of the question that starts expanded (see faq-content.ts); none by default.
  defaultOpenId?: string;
}

export function FaqList({ showTitle = false, defaultOpenId }: FaqListProps) {
  const titleId = useId();
  const GroupHeading = showTitle ? 'h3' : 'h2';

  // A full-width band with its own .container: on /contact the app places it directly after the form's
  // container, and on /faq it follows the page header.
  return (
    <section
      className="promo-faq-section"
      aria-labelledby={showTitle ? titleId : undefined}
      aria-label={showTitle ? undefined : 'Frequently asked questions'}
    >
      <div className="container promo-faq">
        {showTitle && (
          <header className="promo-faq-header">
            <h2 id={titleId} className="promo-section-title">
              FAQ
            </h2>
            <p className="promo-lead">Answers to the questions organizations ask us most often.</p>
          </header>
        )}
        {FAQ_GROUPS.map((group) => (
          <div key={group.id} className="promo-faq-group">
            <div className="promo-faq-group-head">
              <GroupHeading className="promo-faq-group-title">{group.title}</GroupHeading>
              <p className="promo-faq-group-count">{group.entries.length} questions</p>
            </div>
            <div className="promo-faq-items">
              {group.entries.map((entry) => (
                <FaqItem
                  key={entry.id}
                  entry={entry}
                  defaultOpen={entry.id === defaultOpenId}
                  headingLevel={showTitle ? 4 : 3}
                />
              ))}
            </div>
          </div>
        ))}
      </div>
    </section>
  );
}
