import { Readable } from 'node:stream';
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Services } from '../container.ts';
import { currentUser, requireAdmin } from '../plugins/auth.plugin.ts';
import { AuditPageSchema, AuditQuerySchema, auditFilterOf } from './audit-schemas.ts';

/** The audit trail for the provider: filtered pages and the CSV export. */
export function adminAuditRoutes(services: Services): FastifyPluginAsyncTypebox {
  const { auditLog } = services;
  return async (app) => {
    app.addHook('onRequest', requireAdmin);

    app.get(
      '/admin/audit',
      { schema: { tags: ['admin'], querystring: AuditQuerySchema, response: { 200: AuditPageSchema } } },
      async (request) => {
        const { page, pageSize, ...query } = request.query;
        return auditLog.list(auditFilterOf(query), page, pageSize);
      },
    );

    app.get(
      '/admin/audit/export',
      {
        schema: {
          tags: ['admin'],
          description: 'The filtered audit log as CSV (every matching entry, newest first).',
          querystring: Type.Omit(AuditQuerySchema, ['page', 'pageSize']),
        },
      },
      async (request, reply) => {
        const lines = await auditLog.exportCsv(
          currentUser(request),
          auditFilterOf(request.query),
          request.ip,
        );
        const day = new Date().toISOString().slice(0, 10);
        return reply
          .header('content-type', 'text/csv; charset=utf-8')
          .header('content-disposition', `attachment; filename="audit-log-${day}.csv"`)
          .header('cache-control', 'no-store')
          .send(Readable.from(lines));
      },
    );
  };
}
