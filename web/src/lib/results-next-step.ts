import { useEffect } from 'react';
import { useLocation, useNavigate } from 'react-router';

/** What a results page is opened for, besides reading it: saving the search or extracting data from it. */
export type ResultsNextStep = 'save' | 'extract';

/** The navigation state that asks a results page to open the dialog of `nextStep` once it can. */
export const nextStepState = (nextStep: ResultsNextStep) => ({ nextStep });

/**
 * True when the page was opened for `step` and the dialog can be shown (`ready`); the wish is then
 * forgotten, so that a reload or Back does not open the dialog again.
 */
export function useResultsNextStep(step: ResultsNextStep, ready: boolean): boolean {
  const location = useLocation();
  const navigate = useNavigate();
  const due = ready && (location.state as { nextStep?: unknown } | null)?.nextStep === step;
  useEffect(() => {
    if (due) void navigate(`${location.pathname}${location.search}`, { replace: true, state: null });
  }, [due, navigate, location.pathname, location.search]);
  return due;
}
