import { REPORT_ESTIMATE_MS, SEARCH_MESSAGES } from '@osint/contract/search';
import { useEffect, useRef, useState } from 'react';
import { Button } from '../../components/button.tsx';
import { Modal } from '../../components/modal.tsx';
import { generateReport } from './saved-searches-api.ts';
import { saveFile } from '../../lib/save-file.ts';

type ReportState =
  { phase: 'generating' } | { phase: 'ready'; blob: Blob; fileName: string } | { phase: 'error' };

/**
 * Generate report (spec 001 §4): a progress bar that moves towards 95 % over the 50-second estimate,
 * jumps to 100 % when the PDF is ready, then "Export PDF"; or the error text.
 */
export function ReportModal({ resultIds, onClose }: { resultIds: number[]; onClose: () => void }) {
  const [state, setState] = useState<ReportState>({ phase: 'generating' });
  const [progress, setProgress] = useState(0);
  const started = useRef(0);

  useEffect(() => {
    let cancelled = false;
    started.current = Date.now();
    generateReport(resultIds)
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
  }, [resultIds]);

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
          <p className="modal__lead">{SEARCH_MESSAGES.reportFailure}</p>
          <p>{SEARCH_MESSAGES.reportFailureHint}</p>
        </div>
      ) : (
        <>
          <p className="modal__lead">
            {state.phase === 'ready'
              ? 'Your report is ready.'
              : `Preparing a PDF report of ${resultIds.length} ${resultIds.length === 1 ? 'result' : 'results'}.`}
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
