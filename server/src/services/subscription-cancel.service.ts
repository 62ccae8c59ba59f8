import { type FastSpringApi, FastSpringApiRefusal } from '../billing/fastspring-api.ts';
import type { BillingPlanRow } from '../db/schema.ts';
import { QUEUES } from '../jobs/job-queue.ts';
import type { AuditRepository } from '../repositories/audit.repository.ts';
import type { BillingPlanRepository } from '../repositories/billing-plan.repository.ts';
import type { NewJob } from '../repositories/job.repository.ts';

interface CancelJob {
  planId: number;
  subscriptionId: string;
}

/** Attempts before the job is left dead for an admin to retry (Admin → Jobs): ≈ 2 hours of backoff. */
const CANCEL_ATTEMPTS = 8;

/**
 * A plan paid by a card subscription that an admin ends must stop being charged: its subscription is
 * cancelled at FastSpring by a job queued with the plan's end (one transaction). The plan records when
 * FastSpring confirmed it, or why the last attempt failed. Without API credentials nothing is queued and
 * the admin's page says to cancel it in FastSpring's app; every later charge is recorded FAILED for review
 * either way, never as a renewal of the ended plan.
 */
export class SubscriptionCancelService {
  constructor(
    private readonly plans: BillingPlanRepository,
    private readonly audit: AuditRepository,
    private readonly api: FastSpringApi | undefined,
  ) {}

  /** Whether an ended plan's card subscription is cancelled by the platform (API credentials are set). */
  get automatic(): boolean {
    return this.api !== undefined;
  }

  /** The job that cancels an ended plan's card subscription; null when there is none to cancel here. */
  jobFor(plan: BillingPlanRow): NewJob | null {
    if (!this.api || !plan.fastspring_subscription_id || plan.subscription_cancelled_at) return null;
    const payload: CancelJob = { planId: plan.id, subscriptionId: plan.fastspring_subscription_id };
    return {
      queue: QUEUES.cancelSubscription,
      payload,
      maxAttempts: CANCEL_ATTEMPTS,
      uniqueKey: `subscription-cancel:${plan.id}`,
    };
  }

  async runJob(job: unknown): Promise<void> {
    const payload = job as CancelJob;
    if (!this.api)
      throw new Error('FastSpring API credentials are not set (FASTSPRING_API_USERNAME/PASSWORD).');
    const plan = await this.plans.findById(payload.planId);
    if (!plan || plan.subscription_cancelled_at) return;
    const entry = {
      actorUserId: null,
      organizationId: plan.organization_id,
      target: `billing_plan:${plan.id}`,
    };
    try {
      await this.api.cancelSubscription(payload.subscriptionId);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      await this.plans.recordSubscriptionCancel(plan.id, { error: message });
      if (!(error instanceof FastSpringApiRefusal)) throw error; // another attempt may get through
      await this.audit.insert({
        ...entry,
        action: 'billing.subscription_cancel_failed',
        detail: { subscriptionId: payload.subscriptionId, note: message },
      });
      return;
    }
    await this.plans.recordSubscriptionCancel(plan.id, { cancelledAt: new Date() });
    await this.audit.insert({
      ...entry,
      action: 'billing.subscription_cancelled',
      detail: { subscriptionId: payload.subscriptionId },
    });
  }
}
