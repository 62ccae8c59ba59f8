import { CARD_CHECKOUT_NOT_CONFIGURED_WARNING, type AdminDashboard } from '@osint/contract/admin';
import type { AdminDashboardRepository } from '../repositories/admin-dashboard.repository.ts';
import type { MetricsRepository } from '../repositories/metrics.repository.ts';

/** GET /api/admin/dashboard: what waits for the provider, and how large the index is. */
export class AdminDashboardService {
  constructor(
    private readonly dashboard: AdminDashboardRepository,
    private readonly metrics: MetricsRepository,
    private readonly cardCheckout: boolean,
  ) {}

  async get(now = new Date()): Promise<AdminDashboard> {
    // "Today" is the UTC day: the same for every admin, wherever they sit.
    const startOfDay = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
    const [counts, index] = await Promise.all([
      this.dashboard.findCounts(startOfDay),
      this.metrics.indexTotals(),
    ]);
    const warnings = this.cardCheckout ? [] : [CARD_CHECKOUT_NOT_CONFIGURED_WARNING];
    return { ...counts, index, searchesSince: startOfDay.toISOString(), warnings };
  }
}
