import {
  MINOR_REVIEW_MESSAGES,
  MINOR_REVIEW_REASON_MAX_LENGTH,
  type MinorReviewView,
} from '@osint/contract/minor-review';
import type { DetectedFace } from '@osint/contract/search';
import { useId, useState, type FormEvent } from 'react';
import { Button } from '../../components/button.tsx';
import { ApiError, violationsByField } from '../../lib/api-client.ts';
import { requestMinorReview } from './search-api.ts';

/**
 * Under a face refused as a possible minor: where the platform's review of it stands, or "Ask for a
 * review" with the reason the person is an adult. An approved face can be searched once (the chooser
 * lets it be chosen); a refusal is final.
 */
export function MinorReviewRequest({
  face,
  index,
  onRequested,
}: {
  face: DetectedFace;
  index: number;
  onRequested: (review: MinorReviewView) => void;
}) {
  const id = useId();
  const [open, setOpen] = useState(false);
  const [reason, setReason] = useState('');
  const [error, setError] = useState<string>();
  const [sending, setSending] = useState(false);
  const status = face.review?.status;

  if (status === 'PENDING')
    return (
      <p className="minor-review-state minor-review-state--pending" role="status">
        Review pending: the platform is reviewing this face. You will get an e-mail when it has decided.
      </p>
    );
  if (status === 'REFUSED')
    return (
      <p className="minor-review-state minor-review-state--refused" role="status">
        Review refused: the platform judged that this person may be under 18. The refusal is final.
      </p>
    );
  if (status === 'APPROVED')
    return (
      <p className="minor-review-state minor-review-state--approved" role="status">
        Approved after review: this face may be searched once.
      </p>
    );

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const text = reason.trim();
    if (!text) {
      setError(MINOR_REVIEW_MESSAGES.reasonRequired);
      return;
    }
    setSending(true);
    try {
      onRequested(await requestMinorReview(face.hash, face.base64, text));
    } catch (failure) {
      setError(
        violationsByField(failure).reason ??
          (failure instanceof ApiError && failure.status < 500
            ? failure.message
            : 'The review could not be requested. Please try again.'),
      );
    } finally {
      setSending(false);
    }
  };

  return (
    <div className="minor-review-request">
      {status === 'USED' && (
        <p className="minor-review-state">The search approved after the last review has been made.</p>
      )}
      {status === 'EXPIRED' && (
        <p className="minor-review-state">The last review expired before the platform decided.</p>
      )}
      {open ? (
        <form onSubmit={(event) => void submit(event)} noValidate>
          <label className="field__label" htmlFor={`${id}-reason`}>
            Why is the person of face {index + 1} an adult?
          </label>
          <textarea
            dir="auto"
            id={`${id}-reason`}
            className="input textarea"
            rows={3}
            maxLength={MINOR_REVIEW_REASON_MAX_LENGTH}
            value={reason}
            aria-invalid={error ? true : undefined}
            aria-describedby={`${id}-hint${error ? ` ${id}-error` : ''}`}
            onChange={(event) => {
              setReason(event.target.value);
              setError(undefined);
            }}
          />
          <p className="field__hint" id={`${id}-hint`}>
            Only this face image is sent, never the photo. It is deleted once the platform has decided.
          </p>
          {error && (
            <p className="field__error" id={`${id}-error`} role="alert">
              {error}
            </p>
          )}
          <div className="minor-review-request__actions">
            <Button type="submit" loading={sending}>
              Send for review
            </Button>
            <Button type="button" variant="ghost" onClick={() => setOpen(false)}>
              Cancel
            </Button>
          </div>
        </form>
      ) : (
        <Button type="button" variant="secondary" onClick={() => setOpen(true)}>
          Ask for a review
        </Button>
      )}
    </div>
  );
}
