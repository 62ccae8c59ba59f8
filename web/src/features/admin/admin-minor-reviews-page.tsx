import {
  MINOR_REVIEW_KEPT_DAYS,
  MINOR_REVIEW_MESSAGES,
  MINOR_REVIEW_REASON_MAX_LENGTH,
  MINOR_REVIEW_STATUS_LABELS,
  type AdminMinorReviewView,
  type MinorReviewStatus,
} from '@osint/contract/minor-review';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Button } from '../../components/button.tsx';
import { LoadingPlaceholder } from '../../components/loading-placeholder.tsx';
import { useBanner } from '../../components/message-banner.tsx';
import { TextArea } from '../../components/text-field.tsx';
import { violationsByField } from '../../lib/api-client.ts';
import { ADMIN_KEYS, adminApi, type MinorReviewFilter } from './admin-api.ts';
import { AdminHeader, EmailText, errorText, Fact, When } from './admin-ui.tsx';
import './admin.css';

const FILTERS: [MinorReviewFilter, string][] = [
  ['PENDING', 'Pending'],
  ['APPROVED', 'Approved'],
  ['REFUSED', 'Refused'],
  ['EXPIRED', 'Expired'],
  ['ALL', 'All'],
];

const STATUS_TONES: Record<MinorReviewStatus, string> = {
  PENDING: 'warning',
  APPROVED: 'success',
  USED: 'info',
  REFUSED: 'danger',
  EXPIRED: 'neutral',
};

/**
 * /admin/minor-reviews: faces the minors gate refused that an organization (not law enforcement) sent
 * for review. The admin looks at the crop and either approves one search of that face (the person is an
 * adult) or refuses it for good; either way the crop is deleted.
 */
export function AdminMinorReviewsPage() {
  const [filter, setFilter] = useState<MinorReviewFilter>('PENDING');
  const reviews = useQuery({
    queryKey: ADMIN_KEYS.minorReviews(filter),
    queryFn: () => adminApi.minorReviews(filter),
  });
  return (
    <section className="admin-page" aria-labelledby="admin-minor-reviews-title">
      <AdminHeader
        eyebrow="Responsible use"
        title={<span id="admin-minor-reviews-title">Face reviews</span>}
        lead={`Faces refused as possible minors that an organization asked the platform to review. Approve one search only when you judge the person an adult; a refusal is final. The face image is deleted with the decision, or after ${MINOR_REVIEW_KEPT_DAYS} days.`}
      />
      <fieldset className="admin-choice">
        <legend className="visually-hidden">Reviews to show</legend>
        {FILTERS.map(([value, label]) => (
          <label key={value} className="admin-choice-option">
            <input
              type="radio"
              name="minor-review-filter"
              value={value}
              checked={filter === value}
              onChange={() => setFilter(value)}
            />
            {label}
          </label>
        ))}
      </fieldset>
      {reviews.isPending ? (
        <LoadingPlaceholder />
      ) : reviews.isError ? (
        <div className="card admin-empty" role="alert">
          <p className="admin-empty-title">The reviews could not be loaded.</p>
          <Button variant="secondary" onClick={() => void reviews.refetch()}>
            Try again
          </Button>
        </div>
      ) : reviews.data.results.length === 0 ? (
        <div className="card admin-empty">
          <p className="admin-empty-title">
            {filter === 'PENDING' ? 'No face is waiting for review.' : 'No reviews here.'}
          </p>
        </div>
      ) : (
        <ul className="minor-review-list">
          {reviews.data.results.map((review) => (
            <li key={review.id}>
              <ReviewCard review={review} />
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function ReviewCard({ review }: { review: AdminMinorReviewView }) {
  const titleId = `minor-review-${review.id}-title`;
  const tone = STATUS_TONES[review.status];
  return (
    <article className="card minor-review" aria-labelledby={titleId}>
      <div className="minor-review__face">
        {review.hasCrop ? (
          <img
            src={adminApi.minorReviewCropUrl(review.id)}
            alt={`Face sent for review #${review.id}`}
            width={160}
            height={160}
          />
        ) : (
          <p className="minor-review__no-face">Face image deleted</p>
        )}
      </div>
      <div className="minor-review__body">
        <h2 className="admin-section-title" id={titleId}>
          Review #{review.id}{' '}
          <span className={`badge badge--${tone}`}>{MINOR_REVIEW_STATUS_LABELS[review.status]}</span>
        </h2>
        <dl className="admin-facts">
          <Fact label="Organization">{review.organization.name}</Fact>
          <Fact label="Asked by">{review.requestedBy ? <EmailText email={review.requestedBy} /> : '—'}</Fact>
          <Fact label="Asked">
            <When iso={review.createdAt} withTime />
          </Fact>
          <Fact label="Their reason">
            <span className="admin-break">{review.reason}</span>
          </Fact>
          {review.decidedAt && review.status !== 'EXPIRED' && (
            <>
              <Fact label="Decided by">
                {review.decidedBy ? <EmailText email={review.decidedBy} /> : '—'}
              </Fact>
              <Fact label="Decided">
                <When iso={review.decidedAt} withTime />
              </Fact>
              <Fact label="Reason for the decision">
                <span className="admin-break">{review.decisionReason}</span>
              </Fact>
            </>
          )}
        </dl>
        {review.status === 'PENDING' && <DecisionForm review={review} />}
      </div>
    </article>
  );
}

function DecisionForm({ review }: { review: AdminMinorReviewView }) {
  const queryClient = useQueryClient();
  const { showBanner } = useBanner();
  const [reason, setReason] = useState('');
  const [error, setError] = useState<string>();
  const decide = useMutation({
    mutationFn: (approve: boolean) => adminApi.decideMinorReview(review.id, approve, reason.trim()),
    onSuccess: async (decided) => {
      showBanner({
        message:
          decided.status === 'APPROVED'
            ? `Review #${decided.id} approved: one search of this face is allowed.`
            : `Review #${decided.id} refused.`,
        additionalMessage: 'The organization has been told by e-mail; the face image is deleted.',
        type: 'success',
      });
      await queryClient.invalidateQueries({ queryKey: ['admin', 'minor-reviews'] });
    },
    onError: (failure) =>
      setError(violationsByField(failure).reason ?? errorText(failure, 'The decision could not be saved.')),
  });
  const submit = (approve: boolean) => (event: FormEvent) => {
    event.preventDefault();
    if (decide.isPending) return;
    if (!reason.trim()) {
      setError(MINOR_REVIEW_MESSAGES.decisionReasonRequired);
      return;
    }
    setError(undefined);
    decide.mutate(approve);
  };
  return (
    <form className="minor-review__decision" onSubmit={submit(true)} noValidate>
      <TextArea
        label="Reason for the decision"
        value={reason}
        maxLength={MINOR_REVIEW_REASON_MAX_LENGTH}
        rows={2}
        error={error}
        onChange={(event) => {
          setReason(event.target.value);
          setError(undefined);
        }}
      />
      <div className="minor-review__actions">
        <Button
          type="submit"
          loading={decide.isPending && decide.variables === true}
          disabled={decide.isPending}
        >
          Approve one search
        </Button>
        <Button
          type="button"
          variant="danger"
          loading={decide.isPending && decide.variables === false}
          disabled={decide.isPending}
          onClick={submit(false)}
        >
          Refuse
        </Button>
      </div>
    </form>
  );
}
