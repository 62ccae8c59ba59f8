import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Services } from '../container.ts';
import { requireAdmin } from '../plugins/auth.plugin.ts';

/** Prometheus metrics, for admins or a scraper holding METRICS_TOKEN. */
export function metricsRoutes(services: Services): FastifyPluginAsyncTypebox {
  const { metrics } = services;
  return async (app) => {
    app.get(
      '/metrics',
      {
        schema: {
          tags: ['operations'],
          summary:
            'Prometheus metrics (text format 0.0.4): an admin session, or Authorization: Bearer METRICS_TOKEN',
          headers: Type.Object({ authorization: Type.Optional(Type.String({ maxLength: 512 })) }),
          response: { 200: Type.String() },
        },
      },
      async (request, reply) => {
        if (!metrics.acceptsToken(request.headers.authorization)) await requireAdmin(request);
        return reply.type('text/plain; version=0.0.4; charset=utf-8').send(await metrics.render());
      },
    );
  };
}
