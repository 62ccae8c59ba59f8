import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Services } from '../container.ts';
import { currentUser, requireAdmin } from '../plugins/auth.plugin.ts';
import { sendJpeg, sendPdf } from './replies.ts';
import { SavedResult, SavedSearchListQuery, savedSearchFields } from './saved-search.routes.ts';
import { limitReports } from './report-rate-limit.ts';

const tags = ['admin'];
const Id = Type.Object({ id: Type.Integer({ minimum: 1, maximum: 2_147_483_647 }) });
const adminSavedSearchFields = { ...savedSearchFields, organizationName: Type.Optional(Type.String()) };

/**
 * The admin's read-only view of every organization's saved searches (spec 001 §2 Admin area): the user
 * calls under /api/admin, results by id, without edits or deletes. Opening one and reporting are audited.
 */
export function adminSavedSearchRoutes(services: Services): FastifyPluginAsyncTypebox {
  const { savedSearches, rateLimiter } = services;
  return async (app) => {
    app.addHook('onRequest', requireAdmin);

    app.get(
      '/admin/saved-search',
      {
        schema: {
          tags,
          querystring: SavedSearchListQuery,
          response: {
            200: Type.Object({
              results: Type.Array(Type.Object(adminSavedSearchFields)),
              totalResultCount: Type.Integer(),
            }),
          },
        },
      },
      async (request) => savedSearches.adminList(request.query),
    );

    // The user's call under the admin prefix (`saved-search/results/{hash}`), and the shorter path the
    // admin pages have used.
    const results = {
      schema: {
        tags,
        params: Type.Object({ hash: Type.String({ maxLength: 64 }) }),
        response: {
          200: Type.Object({
            ...adminSavedSearchFields,
            results: Type.Array(SavedResult),
            time: Type.Integer(),
            numberOfResults: Type.Integer(),
          }),
        },
      },
    };
    for (const path of ['/admin/saved-search/results/:hash', '/admin/saved-search/:hash'])
      app.get(path, results, async (request) =>
        savedSearches.adminResults(currentUser(request), request.params.hash, request.ip),
      );

    app.get(
      '/admin/saved-search/image/:id',
      { schema: { tags, summary: 'The searched face', params: Id } },
      async (request, reply) => sendJpeg(reply, await savedSearches.adminImage(request.params.id)),
    );

    app.get(
      '/admin/saved-search/results/image/:id',
      { schema: { tags, summary: 'The thumbnail copied with a saved result', params: Id } },
      async (request, reply) => sendJpeg(reply, await savedSearches.adminResultImage(request.params.id)),
    );

    app.post(
      '/admin/saved-search/generate-report',
      {
        schema: {
          tags,
          summary: 'A PDF report of chosen results of one saved search of any organization',
          body: Type.Object({ dataResultsId: Type.Array(Id.properties.id, { minItems: 1, maxItems: 1000 }) }),
        },
      },
      async (request, reply) => {
        const admin = currentUser(request);
        await limitReports(rateLimiter, admin.id);
        return sendPdf(reply, await savedSearches.adminReport(admin, request.body.dataResultsId));
      },
    );
  };
}
