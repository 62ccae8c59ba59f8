import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Services } from '../container.ts';
import { badRequest } from '../lib/http-error.ts';
import { currentUser, requireAdmin } from '../plugins/auth.plugin.ts';
import { MAX_SEED_URLS } from '../services/crawl.service.ts';
import { QUERY_FACE_TOKEN_MAX_LENGTH } from '../services/query-face-token.ts';
import { PageNumber } from './paging-schema.ts';

const CrawlStatus = Type.Union([
  Type.Literal('QUEUED'),
  Type.Literal('RUNNING'),
  Type.Literal('DONE'),
  Type.Literal('STOPPED'),
  Type.Literal('FAILED'),
]);

const CrawlRow = Type.Object({
  id: Type.String(),
  status: CrawlStatus,
  demo: Type.Boolean(),
  seeds: Type.Array(Type.String()),
  pages: Type.Integer(),
  images: Type.Integer(),
  faces: Type.Integer(),
  errors: Type.Integer(),
  lastError: Type.Union([Type.String(), Type.Null()]),
  requestedBy: Type.Union([Type.String(), Type.Null()]),
  createdAt: Type.String(),
  startedAt: Type.Union([Type.String(), Type.Null()]),
  finishedAt: Type.Union([Type.String(), Type.Null()]),
});

const StateCounts = Type.Object({
  queued: Type.Integer(),
  claimed: Type.Integer(),
  done: Type.Integer(),
  failed: Type.Integer(),
  skipped: Type.Integer(),
});

const CrawlDetail = Type.Object({
  ...CrawlRow.properties,
  frontier: Type.Object({ page: StateCounts, image: StateCounts, sitemap: StateCounts }),
  failures: Type.Array(
    Type.Object({
      url: Type.String(),
      kind: Type.String(),
      attempts: Type.Integer(),
      error: Type.Union([Type.String(), Type.Null()]),
    }),
  ),
});

const OptOutRow = Type.Object({
  id: Type.Integer(),
  reason: Type.String(),
  modelId: Type.String(),
  createdAt: Type.String(),
  createdBy: Type.Union([Type.String(), Type.Null()]),
});

const Paging = Type.Object({
  page: PageNumber,
  pageSize: Type.Integer({ minimum: 1, maximum: 200, default: 50 }),
});

/** Crawls (request one, follow its progress) and the opt-out list of faces that must never be indexed. */
export function adminCrawlRoutes(services: Services): FastifyPluginAsyncTypebox {
  const { crawl, indexer } = services;
  return async (app) => {
    app.addHook('onRequest', requireAdmin);

    app.post(
      '/admin/crawl',
      {
        schema: {
          tags: ['admin'],
          body: Type.Object({
            urls: Type.Array(Type.String({ minLength: 1, maxLength: 2048 }), {
              minItems: 1,
              maxItems: MAX_SEED_URLS,
            }),
          }),
          response: { 202: Type.Object({ id: Type.String() }) },
        },
      },
      async (request, reply) => {
        const started = await crawl.startCrawl({
          urls: request.body.urls,
          requestedBy: currentUser(request).id,
          ip: request.ip,
        });
        return reply.code(202).send(started);
      },
    );

    app.get(
      '/admin/crawls',
      { schema: { tags: ['admin'], querystring: Paging, response: { 200: Type.Array(CrawlRow) } } },
      async (request) => crawl.list(request.query),
    );

    app.get(
      '/admin/crawls/:id',
      {
        schema: {
          tags: ['admin'],
          params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) }),
          response: { 200: CrawlDetail },
        },
      },
      async (request) => crawl.get(request.params.id),
    );

    app.post(
      '/admin/opt-outs',
      {
        schema: {
          tags: ['admin'],
          body: Type.Object({
            faceId: Type.Optional(Type.Integer({ minimum: 1 })),
            /** A face of a photo the admin uploaded (POST /api/upload-image). */
            faceHash: Type.Optional(Type.String({ minLength: 1, maxLength: QUERY_FACE_TOKEN_MAX_LENGTH })),
            reason: Type.String({ minLength: 1, maxLength: 1000, pattern: '\\S' }),
          }),
          response: { 201: Type.Object({ id: Type.Integer(), removedFaces: Type.Integer() }) },
        },
      },
      async (request, reply) => {
        const { faceId, faceHash, reason } = request.body;
        if ((faceId === undefined) === (faceHash === undefined)) {
          throw badRequest('Give either the face id of an indexed face or a face of an uploaded photo.');
        }
        const result = await indexer.optOutFace({
          faceId,
          faceHash,
          reason: reason.trim(),
          admin: currentUser(request),
          ip: request.ip,
        });
        return reply.code(201).send(result);
      },
    );

    app.get(
      '/admin/opt-outs',
      { schema: { tags: ['admin'], querystring: Paging, response: { 200: Type.Array(OptOutRow) } } },
      async (request) => indexer.listOptOuts(request.query),
    );
  };
}
