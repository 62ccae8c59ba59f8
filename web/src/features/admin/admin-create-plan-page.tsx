import {
  BILLING_PLAN_MESSAGES,
  MAX_SEAT_LIMIT,
  validateBillingPlan,
  type BillingPlanField,
} from '@osint/contract/admin';
import type { PlanType } from '@osint/contract/api-types';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useNavigate, useParams } from 'react-router';
import { Button } from '../../components/button.tsx';
import { Dropdown } from '../../components/dropdown.tsx';
import { MessageBanner, useBanner } from '../../components/message-banner.tsx';
import { TextInput } from '../../components/text-field.tsx';
import { violationsByField } from '../../lib/api-client.ts';
import { ADMIN_KEYS, adminApi } from './admin-api.ts';
import { AdminHeader, errorText, QueryState } from './admin-ui.tsx';
import './admin.css';

const PLAN_TYPES: { value: PlanType; label: string; hint: string }[] = [
  {
    value: 'VIRTUAL',
    label: 'Virtual (no payment)',
    hint: 'Access granted without a payment: partners, pilots, evaluations.',
  },
  {
    value: 'ONE_TIME_PAYMENT',
    label: 'Fixed period (paid by hand)',
    hint: 'A period paid outside the platform, for example by a signed contract.',
  },
  {
    value: 'SUBSCRIPTION',
    label: 'Subscription (paid by hand)',
    hint: 'A recurring plan billed outside the card checkout.',
  },
  { value: 'TRIAL', label: 'Trial', hint: 'Restricted access: original sources stay hidden.' },
];

/** A date input's value (YYYY-MM-DD) `days` from today, in local time. */
// Plan days are calendar days in UTC, as the owner's pages, the e-mails and the invoices write them: an
// admin anywhere gives and sees the same days as the organization.
function dayFromToday(days: number): string {
  return new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);
}

/** The start is the beginning of its day (now when that is today); the end is the end of its day. */
function startInstant(day: string): string {
  const start = new Date(`${day}T00:00:00Z`);
  return (day === dayFromToday(0) ? new Date() : start).toISOString();
}
function endInstant(day: string): string {
  const end = new Date(`${day}T00:00:00Z`);
  if (Number.isNaN(end.getTime())) return day;
  end.setUTCDate(end.getUTCDate() + 1);
  return end.toISOString();
}

/** /admin/organizations/{id}/create-billing-plan: manual and VIRTUAL plans (type, start, end, seats). */
export function AdminCreatePlanPage() {
  const { id = '' } = useParams();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const { showBanner } = useBanner();
  const organization = useQuery({
    queryKey: ADMIN_KEYS.organization(id),
    queryFn: () => adminApi.organization(id),
  });
  const [planType, setPlanType] = useState<PlanType>('VIRTUAL');
  const [startDay, setStartDay] = useState(dayFromToday(0));
  const [endDay, setEndDay] = useState(dayFromToday(30));
  const [seats, setSeats] = useState('5');
  const [errors, setErrors] = useState<Partial<Record<BillingPlanField, string>>>({});
  const [failure, setFailure] = useState<string>();

  const input = () => ({
    planType,
    startDate: startDay ? startInstant(startDay) : '',
    endDate: endDay ? endInstant(endDay) : '',
    seatLimit: /^\d+$/.test(seats.trim()) ? Number(seats.trim()) : Number.NaN,
  });
  const create = useMutation({
    mutationFn: () => adminApi.createPlan(id, input()),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: ADMIN_KEYS.organization(id) });
      showBanner({ message: BILLING_PLAN_MESSAGES.created, type: 'success' });
      navigate(`/admin/organizations/${id}`);
    },
    onError: (error) => {
      setErrors(violationsByField(error) as Partial<Record<BillingPlanField, string>>);
      setFailure(errorText(error, BILLING_PLAN_MESSAGES.failure));
    },
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setFailure(undefined);
    const problems = validateBillingPlan(input());
    setErrors(problems);
    if (Object.keys(problems).length === 0) create.mutate();
  };
  const back = { to: `/admin/organizations/${id}`, label: organization.data?.name ?? 'Organization' };
  const hint = PLAN_TYPES.find((p) => p.value === planType)?.hint;

  return (
    <section className="admin-page admin-page--narrow" aria-labelledby="admin-plan-title">
      <AdminHeader
        eyebrow={organization.data?.name ?? 'Organization'}
        title={<span id="admin-plan-title">Create billing plan</span>}
        back={back}
        lead="A plan made by hand takes effect on its start date. Among the plans in force, a paid plan comes before a trial, then the one that started last; that plan decides the seats."
      />
      {!organization.data ? (
        <QueryState query={organization} notFoundText="This organization does not exist." />
      ) : (
        <form className="card admin-form" onSubmit={submit} noValidate>
          {failure && <MessageBanner message={{ message: failure, type: 'danger' }} />}
          <Dropdown
            label="Plan type"
            options={PLAN_TYPES}
            value={planType}
            onChange={(value) => setPlanType(value as PlanType)}
            error={errors.planType}
          />
          {hint && <p className="admin-muted admin-form-hint">{hint}</p>}
          <div className="admin-form-row">
            <TextInput
              label="Start date"
              type="date"
              value={startDay}
              error={errors.startDate}
              onChange={(event) => setStartDay(event.target.value)}
            />
            <TextInput
              label="End date"
              type="date"
              value={endDay}
              min={startDay}
              error={errors.endDate}
              hint="The plan ends at the end of this day."
              onChange={(event) => setEndDay(event.target.value)}
            />
          </div>
          <TextInput
            label="Seat limit"
            type="number"
            inputMode="numeric"
            min={1}
            max={MAX_SEAT_LIMIT}
            step={1}
            value={seats}
            error={errors.seatLimit}
            hint={`Users of the organization who may have access at the same time (1–${MAX_SEAT_LIMIT}).`}
            onChange={(event) => setSeats(event.target.value)}
          />
          <div className="admin-form-actions">
            <Button variant="secondary" onClick={() => navigate(back.to)} disabled={create.isPending}>
              Cancel
            </Button>
            <Button type="submit" loading={create.isPending}>
              Create plan
            </Button>
          </div>
        </form>
      )}
    </section>
  );
}
