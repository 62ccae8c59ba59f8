import {
  defaultExtractionName,
  EXTRACTION_NAME_MAX_LENGTH,
  EXTRACTOR_MESSAGES,
} from '@osint/contract/data-extractor';
import { useState } from 'react';
import { Button } from '../../components/button.tsx';
import { NameDescriptionModal } from '../../components/name-description-modal.tsx';
import { useResultsNextStep } from '../../lib/results-next-step.ts';
import { startExtraction } from './data-extractor-api.ts';
import './data-extractor.css';

/** The AI data extractor card of the search results view (spec 001 §2), with its start modal. */
export function ExtractorCard({ searchHash, image }: { searchHash: string; image: string }) {
  const [open, setOpen] = useState(false);
  // Opened from an alert's "Extract data": the dialog opens at once (the card shows once the face is loaded).
  const extractDue = useResultsNextStep('extract', true);
  const [extractDueTaken, setExtractDueTaken] = useState(false);
  if (extractDue && !extractDueTaken) {
    setExtractDueTaken(true);
    setOpen(true);
  }
  return (
    <aside className="card extractor-card" aria-labelledby="extractor-card-title">
      <div className="extractor-card__icon" aria-hidden="true">
        <svg viewBox="0 0 24 24" width="28" height="28">
          <path
            d="M12 3l1.8 4.2L18 9l-4.2 1.8L12 15l-1.8-4.2L6 9l4.2-1.8L12 3Zm6 11 .9 2.1L21 17l-2.1.9L18 20l-.9-2.1L15 17l2.1-.9L18 14Z"
            fill="currentColor"
          />
        </svg>
      </div>
      <div className="extractor-card__text">
        <h2 className="extractor-card__title" id="extractor-card-title">
          AI Data Extractor
        </h2>
        <p>
          Find out who this person is: names, politician, sanctions and criminal flags with their evidence,
          and the people seen with them, read from the pages of these results. It takes a few minutes; we
          e-mail you when it is done.
        </p>
      </div>
      <Button onClick={() => setOpen(true)}>Extract data</Button>
      {open && <StartExtractionModal searchHash={searchHash} image={image} onClose={() => setOpen(false)} />}
    </aside>
  );
}

/** AI data extractor start: optional name and description, then the in-progress confirmation (spec 001 §4). */
export function StartExtractionModal({
  searchHash,
  image,
  onClose,
}: {
  searchHash: string;
  image: string;
  onClose: () => void;
}) {
  return (
    <NameDescriptionModal
      title="AI Data Extractor"
      lead="Extract names, flags and connections from the pages of these results."
      initialName={defaultExtractionName(new Date())}
      nameMaxLength={EXTRACTION_NAME_MAX_LENGTH}
      nameHint="Optional"
      descriptionLabel="Description (optional)"
      descriptionRows={3}
      failure={{ message: EXTRACTOR_MESSAGES.startFailure, log: 'Starting the extraction failed' }}
      submitLabel="Start extraction"
      confirmation={{
        title: 'Extraction in progress',
        lead: 'The AI data extractor is analysing the pages of your results.',
        text: 'This takes a few minutes. The extraction appears under AI Data Extractor, and we send you an e-mail when it is done.',
        link: { to: '/data-extractor', label: 'Go to AI Data Extractor' },
      }}
      onSubmit={async (name, description) => {
        // The name is optional: an emptied field falls back to the default of the moment.
        const chosen = name || defaultExtractionName(new Date());
        await startExtraction({ name: chosen, description, searchHash, image });
      }}
      onClose={onClose}
    />
  );
}
