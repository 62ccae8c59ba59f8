import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Services } from '../container.ts';
import { requireAdmin } from '../plugins/auth.plugin.ts';

const Dashboard = Type.Object({
  pendingRegistrations: Type.Integer(),
  ordersAwaitingPayment: Type.Integer(),
  failedJobs: Type.Integer(),
  runningCrawls: Type.Integer(),
  index: Type.Object({ pages: Type.Integer(), images: Type.Integer(), faces: Type.Integer() }),
  searchesToday: Type.Integer(),
  searchesSince: Type.String({ description: 'Start of the UTC day the search count covers' }),
  warnings: Type.Array(Type.String(), { description: 'Configuration to fix, in words' }),
});

/** /admin: the provider's dashboard. */
export function adminDashboardRoutes(services: Services): FastifyPluginAsyncTypebox {
  const { adminDashboard } = services;
  return async (app) => {
    app.addHook('onRequest', requireAdmin);
    app.get('/admin/dashboard', { schema: { tags: ['admin'], response: { 200: Dashboard } } }, async () =>
      adminDashboard.get(),
    );
  };
}
