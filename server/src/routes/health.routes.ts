import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { sql } from 'kysely';
import type { Db } from '../db/database.ts';

export function healthRoutes(db: Db): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/health',
      {
        schema: {
          tags: ['system'],
          summary: 'Liveness and database reachability',
          response: {
            200: Type.Object({ status: Type.Literal('ok') }),
            503: Type.Object({ status: Type.String() }),
          },
        },
      },
      async (_request, reply) => {
        try {
          await sql`select 1`.execute(db);
          return { status: 'ok' as const };
        } catch {
          return reply.status(503).send({ status: 'database unavailable' });
        }
      },
    );
  };
}
