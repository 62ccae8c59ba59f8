import { REPORT_ESTIMATE_MS } from '@osint/contract/search';
import { useEffect, useRef, useState } from 'react';
import { Button } from './button.tsx';
import { Modal } from './modal.tsx';
import { saveFile } from '../lib/save-file.ts';
import './report-modal.css';

type ReportState =
  { phase: 'generating' } | { phase: 'ready'; blob: Blob; fileName: string } | { phase: 'error' };

export interface ReportModalProps {
  /** How many results the report covers (the lead text). */
  count: number;
  /** Asks the server for the PDF; called once when the modal opens. */
  generate: () => Promise<{ blob: Blob; fileName: string }>;
  /** The spec's error text and hint (spec 001 §8 Report failure). */
  failure: { message: string; hint: string };
  onClose: () => void;
}

/**
 * Generate report (spec 001 §4): a progress bar that moves towards 95 % over the 50-second estimate,
 * jumps to 100 % when the PDF is ready, then "Export PDF"; or the error text. Used by saved searches and
 * the AI data extractor.
 */
export function ReportModal({ count, generate, failure, onClose }: ReportModalProps) {
  const [state, setState] = useState<ReportState>({ phase: 'generating' });
  const [progress, setProgress] = useState(0);
  const started = useRef(0);
  // The request is made once per opened modal, whatever the parent re-renders.
  const request = useRef(generate);

  useEffect(() => {
    let cancelled = false;
    started.current = Date.now();
    request
      .current()
      .then(({ blob, fileName }) => {
        if (!cancelled) setState({ phase: 'ready', blob, fileName });
      })
      .catch((error: unknown) => {
        console.error('Report generation failed', error);
        if (!cancelled) setState({ phase: 'error' });
      });
    return () => {
      cancelled = true;
    };
  }, []);

  useEffect(() => {
    if (state.phase !== 'generating') return;
    const timer = setInterval(() => {
      const share = (Date.now() - started.current) / REPORT_ESTIMATE_MS;
      setProgress(Math.min(95, Math.round(share * 95)));
    }, 250);
    return () => clearInterval(timer);
  }, [state.phase]);

  const shown = state.phase === 'ready' ? 100 : progress;
  return (
    <Modal
      title="Generate report"
      onClose={onClose}
      size="sm"
      actions={
        state.phase === 'ready' ? (
          <>
            <Button variant="secondary" onClick={onClose}>
              Close
            </Button>
            <Button onClick={() => saveFile(state.blob, state.fileName)}>Export PDF</Button>
          </>
        ) : (
          <Button variant="secondary" onClick={onClose}>
            {state.phase === 'error' ? 'Close' : 'Cancel'}
          </Button>
        )
      }
    >
      {state.phase === 'error' ? (
        <div role="alert">
          <p className="modal__lead">{failure.message}</p>
          <p>{failure.hint}</p>
        </div>
      ) : (
        <>
          <p className="modal__lead">
            {state.phase === 'ready'
              ? 'Your report is ready.'
              : `Preparing a PDF report of ${count} ${count === 1 ? 'result' : 'results'}.`}
          </p>
          <p>
            {state.phase === 'ready'
              ? 'Export it as a PDF file.'
              : 'Your report will be ready in under a minute.'}
          </p>
          <div
            className="progress"
            role="progressbar"
            aria-label="Report progress"
            aria-valuemin={0}
            aria-valuemax={100}
            aria-valuenow={shown}
          >
            <div className="progress__bar" style={{ width: `${shown}%` }} />
          </div>
          <p className="progress__label">{shown}%</p>
        </>
      )}
    </Modal>
  );
}
