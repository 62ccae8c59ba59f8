import {
  defaultExtractionName,
  EXTRACTION_NAME_MAX_LENGTH,
  EXTRACTOR_MESSAGES,
} from '@osint/contract/data-extractor';
import { useState } from 'react';
import { Link } from 'react-router';
import { Button } from '../../components/button.tsx';
import { Modal } from '../../components/modal.tsx';
import { TextArea, TextInput } from '../../components/text-field.tsx';
import { startExtraction } from './data-extractor-api.ts';
import './data-extractor.css';

/** The AI data extractor card of the search results view (spec 001 §2), with its start modal. */
export function ExtractorCard({ searchHash, image }: { searchHash: string; image: string }) {
  const [open, setOpen] = useState(false);
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
  const [name, setName] = useState(() => defaultExtractionName(new Date()));
  const [description, setDescription] = useState('');
  const [starting, setStarting] = useState(false);
  const [failed, setFailed] = useState(false);
  const [started, setStarted] = useState(false);

  const submit = async (event: React.FormEvent) => {
    event.preventDefault();
    if (starting) return;
    setStarting(true);
    setFailed(false);
    try {
      // The name is optional: an emptied field falls back to the default of the moment.
      const chosen = name.trim() || defaultExtractionName(new Date());
      await startExtraction({ name: chosen, description: description.trim(), searchHash, image });
      setStarted(true);
    } catch (error) {
      console.error('Starting the extraction failed', error);
      setFailed(true);
    } finally {
      setStarting(false);
    }
  };

  if (started) {
    return (
      <Modal
        title="Extraction in progress"
        onClose={onClose}
        size="sm"
        actions={
          <>
            <Button variant="secondary" onClick={onClose}>
              Close
            </Button>
            <Link className="btn btn-primary" to="/data-extractor">
              Go to AI Data Extractor
            </Link>
          </>
        }
      >
        <p className="modal__lead">The AI data extractor is analysing the pages of your results.</p>
        <p>
          This takes a few minutes. The extraction appears under AI Data Extractor, and we send you an e-mail
          when it is done.
        </p>
      </Modal>
    );
  }

  return (
    <Modal title="AI Data Extractor" onClose={onClose} size="sm">
      <form className="form" onSubmit={submit} noValidate>
        <p className="modal__lead">Extract names, flags and connections from the pages of these results.</p>
        <TextInput
          label="Name"
          value={name}
          maxLength={EXTRACTION_NAME_MAX_LENGTH}
          onChange={(event) => setName(event.target.value)}
          hint="Optional"
          autoComplete="off"
        />
        <TextArea
          label="Description (optional)"
          value={description}
          onChange={(event) => setDescription(event.target.value)}
          rows={3}
        />
        {failed && (
          <p className="field__error" role="alert">
            {EXTRACTOR_MESSAGES.startFailure}
          </p>
        )}
        <div className="modal__actions">
          <Button variant="secondary" onClick={onClose}>
            Cancel
          </Button>
          <Button type="submit" loading={starting}>
            Start extraction
          </Button>
        </div>
      </form>
    </Modal>
  );
}
