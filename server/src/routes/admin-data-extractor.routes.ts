import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Services } from '../container.ts';
import { currentUser, requireAdmin } from '../plugins/auth.plugin.ts';
import type { ExtractionViewer } from '../services/data-extractor.service.ts';
import {
  Connections,
  DetailsQuery,
  DetailsResponse,
  ListQuery,
  ListResponse,
  ReportBody,
  Summary,
} from './data-extractor-schemas.ts';
import { sendJpeg, sendPdf } from './replies.ts';
import { limitReports } from './report-rate-limit.ts';

const Id = Type.Object({ id: Type.String({ pattern: '^[0-9]{1,9}$' }) });
const tags = ['admin'];

/**
 * The admin's read-only view of every organization's extractions (spec 001 §2 Admin area): the user
 * calls under /api/admin, with numeric ids; no checked switches, edits or deletes.
 */
export function adminDataExtractorRoutes(services: Services): FastifyPluginAsyncTypebox {
  const { dataExtractor, rateLimiter } = services;
  return async (app) => {
    app.addHook('onRequest', requireAdmin);
    const admin = (request: Parameters<typeof currentUser>[0]): ExtractionViewer => ({
      kind: 'admin',
      user: currentUser(request),
    });

    app.get(
      '/admin/data-extractor',
      { schema: { tags, querystring: ListQuery, response: { 200: ListResponse } } },
      async (request) => dataExtractor.list(admin(request), request.query),
    );

    app.get('/admin/data-extractor/image/:id', { schema: { tags, params: Id } }, async (request, reply) =>
      sendJpeg(reply, await dataExtractor.image(admin(request), request.params.id)),
    );

    app.get(
      '/admin/data-extractor/results/:id',
      { schema: { tags, params: Id, response: { 200: Summary } } },
      async (request) => dataExtractor.summary(admin(request), request.params.id),
    );

    app.get(
      '/admin/data-extractor/results/details/:id',
      { schema: { tags, params: Id, querystring: DetailsQuery, response: { 200: DetailsResponse } } },
      async (request) => dataExtractor.details(admin(request), request.params.id, request.query),
    );

    app.get(
      '/admin/data-extractor/results/:id/connections',
      { schema: { tags, params: Id, response: { 200: Connections } } },
      async (request) => dataExtractor.connections(admin(request), request.params.id),
    );

    app.get(
      '/admin/data-extractor/results/connections/image/:id',
      { schema: { tags, params: Id } },
      async (request, reply) =>
        sendJpeg(reply, await dataExtractor.connectionImage(admin(request), request.params.id)),
    );

    app.get(
      '/admin/data-extractor/results/image/:id',
      { schema: { tags, params: Id } },
      async (request, reply) =>
        sendJpeg(reply, await dataExtractor.resultImage(admin(request), request.params.id)),
    );

    app.get(
      '/admin/data-extractor/results/:id/generate-report/all',
      { schema: { tags, params: Id } },
      async (request, reply) => {
        await limitReports(rateLimiter, currentUser(request).id);
        return sendPdf(reply, await dataExtractor.report(admin(request), request.params.id, undefined, true));
      },
    );

    app.post(
      '/admin/data-extractor/results/:id/generate-report',
      { schema: { tags, params: Id, body: ReportBody } },
      async (request, reply) => {
        await limitReports(rateLimiter, currentUser(request).id);
        const { hashedId, containWikipediaData } = request.body;
        const report = await dataExtractor.report(
          admin(request),
          request.params.id,
          hashedId,
          containWikipediaData,
        );
        return sendPdf(reply, report);
      },
    );
  };
}
