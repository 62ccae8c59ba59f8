import type { RateLimiter } from './rate-limiter.ts';

const MINUTE_MS = 60_000;

/**
 * Per-minute budgets of the organization's work, per user and for the whole organization. The user's
 * budget stops one runaway client; the organization's stops one organization's users together (a seat
 * count multiplies the user's budget) from taking the shared API process and database from the others.
 * The face workers already take organizations in turns; index look-ups, result rows and jobs do not.
 * The organization's budget is five users' worth: far above what a team does by hand.
 */
export const WORK_RATE_LIMITS = {
  /** Photo uploads and photos by address: the face engine analyses each. */
  upload: { perUser: 60, perOrganization: 300 },
  /** Searches of the index, including searching a watched face now and searching again with results. */
  search: { perUser: 60, perOrganization: 300 },
  'save-search': { perUser: 30, perOrganization: 150 },
  'data-extractor': { perUser: 20, perOrganization: 100 },
  /** Edits of an extraction's results: a new name is matched against the watch-lists, may fetch a page. */
  'data-extractor-edit': { perUser: 30, perOrganization: 150 },
} as const;

export type WorkAction = keyof typeof WORK_RATE_LIMITS;

/** Counts one `action` for the user and their organization; 429 when either budget is spent. */
export async function limitWork(
  limiter: RateLimiter,
  action: WorkAction,
  user: { id: number; organizationId: number },
): Promise<void> {
  const { perUser, perOrganization } = WORK_RATE_LIMITS[action];
  // The user's budget first: a user over theirs does not spend the organization's.
  await limiter.hit([`${action}:user:${user.id}`], perUser, MINUTE_MS);
  await limiter.hit([`${action}:organization:${user.organizationId}`], perOrganization, MINUTE_MS);
}
