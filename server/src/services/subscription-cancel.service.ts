import type { FastSpringApi } from '../billing/fastspring-api.ts';
import type { BillingPlanRow } from '../db/schema.ts';
import { type JobQueue, QUEUES } from '../jobs/job-queue.ts';
import type { AuditRepository } from '../repositories/audit.repository.ts';
import type { BillingPlanRepository } from '../repositories/billing-plan.repository.ts';
import type { NewJob } from '../repositories/job.repository.ts';

interface CancelJob {
  planId: number;
  subscriptionId: string;
}

/**
 * Attempts before the job is left dead for an admin to retry (Admin → Jobs): with the default 5 s base
 * the backoff between them adds up to about 1½ hours.
 */
const CANCEL_ATTEMPTS = 8;

/**
 * A plan paid by a card subscription that an admin ends must stop being charged: its subscription is
 * cancelled at FastSpring by a job queued with the plan's end (one transaction). The plan records when
 * FastSpring confirmed it (or its deactivation webhook said so), or why the last attempt failed. Without API
 * credentials nothing is queued and the admin's page says to cancel it in FastSpring's app; every later
 * charge is recorded FAILED for review either way, never as a renewal of the ended plan.
 */
export class SubscriptionCancelService {
  constructor(
    private readonly plans: BillingPlanRepository,
    private readonly audit: AuditRepository,
    private readonly queue: JobQueue,
    private readonly api: FastSpringApi | undefined,
  ) {}

  /** Whether ending a plan cancels its card subscription here (API credentials are set). */
  get automatic(): boolean {
    return this.api !== undefined;
  }

  /** The job that cancels an ended plan's card subscription; null when there is none to cancel here. */
  jobFor(plan: BillingPlanRow): NewJob | null {
    if (!this.api || !plan.fastspring_subscription_id) return null;
    const payload: CancelJob = { planId: plan.id, subscriptionId: plan.fastspring_subscription_id };
    return {
      queue: QUEUES.cancelSubscription,
      payload,
      maxAttempts: CANCEL_ATTEMPTS,
      uniqueKey: `subscription-cancel:${plan.id}`,
      organizationId: plan.organization_id,
    };
  }

  /** Tells this process's job runner about a cancellation committed with a plan's end. */
  queued(): void {
    this.queue.wake();
  }

  async runJob(job: unknown): Promise<void> {
    const { planId, subscriptionId } = job as CancelJob;
    if (!this.api)
      throw new Error('FastSpring API credentials are not set (FASTSPRING_API_USERNAME/PASSWORD).');
    const plan = await this.plans.findById(planId);
    if (!plan || plan.subscription_cancelled_at) return;
    try {
      await this.api.cancelSubscription(subscriptionId);
    } catch (error) {
      // Shown on the admin's organization page; the job tries again, and once dead an admin may retry it.
      await this.plans.recordSubscriptionCancel(plan.id, {
        error: error instanceof Error ? error.message : String(error),
      });
      throw error;
    }
    await this.plans.recordSubscriptionCancel(plan.id, { cancelledAt: new Date() });
    await this.audit.insert({
      actorUserId: null,
      organizationId: plan.organization_id,
      action: 'billing.subscription_cancelled',
      target: `billing_plan:${plan.id}`,
      detail: { subscriptionId },
    });
  }
}
