import {
  END_PLAN_MESSAGES,
  END_PLAN_REASON_MAX_LENGTH,
  type AdminBillingPlanView,
} from '@osint/contract/admin';
import { formatDay } from '@osint/contract/dates';
import { PLAN_TYPE_LABELS } from '@osint/contract/pricing';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Button } from '../../components/button.tsx';
import { useBanner } from '../../components/message-banner.tsx';
import { Modal } from '../../components/modal.tsx';
import { TextArea } from '../../components/text-field.tsx';
import { ADMIN_KEYS, adminApi } from './admin-api.ts';
import { errorText } from './admin-ui.tsx';

/**
 * Ends a plan now, or cancels one that has not started (a trial revoked for misuse, spec 000 §1). The
 * reason is required: it is kept in the audit log and sent to the owner.
 */
export function EndPlanModal({
  organizationId,
  plan,
  otherPlans,
  onClose,
}: {
  organizationId: number;
  plan: AdminBillingPlanView;
  /** The organization's other plans: a paid one that also covers today takes over when this one ends. */
  otherPlans: readonly AdminBillingPlanView[];
  onClose: () => void;
}) {
  const queryClient = useQueryClient();
  const { showBanner } = useBanner();
  const [reason, setReason] = useState('');
  const [error, setError] = useState<string>();
  const end = useMutation({
    mutationFn: () => adminApi.endPlan(plan.id, reason.trim()),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: ADMIN_KEYS.organization(String(organizationId)) });
      showBanner({ message: END_PLAN_MESSAGES.ended, type: 'success' });
      onClose();
    },
    onError: (failure) => setError(errorText(failure, 'The plan could not be ended.')),
  });
  const confirm = () => {
    if (!reason.trim()) {
      setError(END_PLAN_MESSAGES.reasonRequired);
      return;
    }
    end.mutate();
  };
  const started = plan.state !== 'FUTURE';
  // A plan in force hides the ones it superseded, and ending it brings a paid one back. A trial a paid
  // plan replaced does not come back: billing started after it (the server's rule of the plan in force).
  const takesOver =
    plan.state === 'ACTIVE'
      ? otherPlans.find(
          (other) =>
            other.state === 'SUPERSEDED' && (other.planType !== 'TRIAL' || plan.planType === 'TRIAL'),
        )
      : undefined;
  return (
    <Modal
      title={`End the ${PLAN_TYPE_LABELS[plan.planType].toLowerCase()} plan?`}
      onClose={onClose}
      size="sm"
      actions={
        <>
          <Button variant="secondary" onClick={onClose}>
            Cancel
          </Button>
          <Button variant="danger" onClick={confirm} loading={end.isPending}>
            End plan
          </Button>
        </>
      }
    >
      <p>
        {!started
          ? `The plan (${formatDay(plan.startDate)} – ${formatDay(plan.endDate)}) will not start.`
          : takesOver
            ? `The plan (${formatDay(plan.startDate)} – ${formatDay(plan.endDate)}) ends now.`
            : `The plan (${formatDay(plan.startDate)} – ${formatDay(plan.endDate)}) ends now: the organization’s users lose search access at once.`}{' '}
        The owner is told by e-mail, with the reason.
      </p>
      {takesOver && (
        <p className="admin-warning">
          {`The organization’s ${PLAN_TYPE_LABELS[takesOver.planType].toLowerCase()} plan also covers today (until ${formatDay(takesOver.endDate)}): its users keep that plan’s access. End it too to remove all access.`}
        </p>
      )}
      {plan.cardSubscription && (
        <p>
          {plan.cardSubscription.cancelledOnEnd
            ? `Its card subscription (${plan.cardSubscription.id}) will be cancelled at FastSpring, so the card is not charged again.`
            : `Cancel its card subscription (${plan.cardSubscription.id}) in FastSpring’s app too: no FastSpring API credentials are set here, so the card would still be charged.`}
        </p>
      )}
      <TextArea
        label="Reason (required, sent to the owner)"
        rows={3}
        maxLength={END_PLAN_REASON_MAX_LENGTH}
        value={reason}
        error={error}
        onChange={(event) => {
          setReason(event.target.value);
          setError(undefined);
        }}
      />
    </Modal>
  );
}
