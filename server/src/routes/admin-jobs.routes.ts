import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ADMIN_JOBS_PAGE_SIZE } from '@osint/contract/admin-jobs';
import type { Services } from '../container.ts';
import { currentUser, requireAdmin } from '../plugins/auth.plugin.ts';
import { PageNumber } from './paging-schema.ts';

const JobState = Type.Union([
  Type.Literal('failed'),
  Type.Literal('queued'),
  Type.Literal('running'),
  Type.Literal('done'),
]);

const JobRow = Type.Object({
  id: Type.Integer(),
  queue: Type.String(),
  state: JobState,
  attempts: Type.Integer(),
  maxAttempts: Type.Integer(),
  lastError: Type.Union([Type.String(), Type.Null()]),
  createdAt: Type.String(),
  runAt: Type.String(),
  finishedAt: Type.Union([Type.String(), Type.Null()]),
});

/** Admin → Jobs: background jobs by state (dead ones as `failed`) and their retry. */
export function adminJobsRoutes(services: Services): FastifyPluginAsyncTypebox {
  const { adminJobs } = services;
  return async (app) => {
    app.addHook('onRequest', requireAdmin);

    app.get(
      '/admin/jobs',
      {
        schema: {
          tags: ['admin'],
          summary: 'Background jobs in one state, newest first; failed = dead after its last attempt',
          querystring: Type.Object({
            state: Type.Optional(JobState),
            page: PageNumber,
            pageSize: Type.Integer({ minimum: 1, maximum: 100, default: ADMIN_JOBS_PAGE_SIZE }),
          }),
          response: {
            200: Type.Object({
              items: Type.Array(JobRow),
              total: Type.Integer(),
              page: Type.Integer(),
              pageSize: Type.Integer(),
            }),
          },
        },
      },
      async (request) => {
        const { state, page, pageSize } = request.query;
        return adminJobs.list(state ?? 'failed', page, pageSize);
      },
    );

    app.post(
      '/admin/jobs/:id/retry',
      {
        schema: {
          tags: ['admin'],
          summary: 'Queues a failed job again for a fresh round of attempts (409 when it has not failed)',
          params: Type.Object({ id: Type.Integer({ minimum: 1, maximum: 2_147_483_647 }) }),
          response: { 200: JobRow },
        },
      },
      async (request) => adminJobs.retry(currentUser(request), request.params.id),
    );
  };
}
