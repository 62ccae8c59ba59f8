import { MAX_RELOAD_PAGE_SIZE } from '@osint/contract/constants';
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Services } from '../container.ts';
import { currentUser, requireWorkAccess } from '../plugins/auth.plugin.ts';
import { sendJpeg, sendPdf } from './replies.ts';
import { MatchScoreFields } from './score-schemas.ts';
import { limitReports } from './report-rate-limit.ts';
import { PageNumber } from './paging-schema.ts';
import { limitWork } from '../lib/work-rate-limits.ts';

const SearchType = Type.Union([Type.Literal('OSINT'), Type.Literal('SOCIAL_MEDIA_SEARCH')]);
export const SavedSearchStatus = Type.Union([Type.Literal('PENDING'), Type.Literal('COMPLETED')]);
const Id = Type.Integer({ minimum: 1, maximum: 2_147_483_647 });

/** GET /api/saved-search and its admin variant: pages from 1, a status and a search box. */
export const SavedSearchListQuery = Type.Object({
  pageNumber: PageNumber,
  // A refetch reloads every page shown in one request (spec 001 §7).
  pageSize: Type.Integer({ minimum: 1, maximum: MAX_RELOAD_PAGE_SIZE, default: 5 }),
  status: Type.Optional(SavedSearchStatus),
  search: Type.Optional(Type.String({ maxLength: 200 })),
});

export const savedSearchFields = {
  id: Type.Integer(),
  hash: Type.String(),
  name: Type.String(),
  description: Type.String(),
  createdAt: Type.String(),
  image: Type.String(),
  status: SavedSearchStatus,
  type: SearchType,
  resultCount: Type.Integer(),
};
const SavedSearch = Type.Object(savedSearchFields);

export const SavedResult = Type.Object({
  id: Type.Integer(),
  hash: Type.String(),
  group: Type.String(),
  thumbnailUrl: Type.String(),
  imageUrl: Type.Union([Type.String(), Type.Null()]),
  sourceUrl: Type.Union([Type.String(), Type.Null()]),
  sourceTitle: Type.String(),
  crawledAt: Type.String(),
  ...MatchScoreFields,
  quality: Type.Union([Type.Number(), Type.Null()]),
  faceBox: Type.Union(
    [
      Type.Object({ x: Type.Integer(), y: Type.Integer(), width: Type.Integer(), height: Type.Integer() }),
      Type.Null(),
    ],
    { description: "The matched face's box in the result image, in that image's pixels" },
  ),
  imageSize: Type.Union([Type.Object({ width: Type.Integer(), height: Type.Integer() }), Type.Null()]),
});

const Removed = Type.Object({ removed: Type.Integer(), remaining: Type.Integer() });

/** Saved searches (spec 001 §7 Saved searches), and saving a search. */
export function savedSearchRoutes(services: Services): FastifyPluginAsyncTypebox {
  const { savedSearches, rateLimiter } = services;
  return async (app) => {
    app.addHook('onRequest', requireWorkAccess(services.access));

    app.post(
      '/search/save',
      {
        // The searched face comes along as a base64 JPEG.
        bodyLimit: 2 * 1024 * 1024,
        schema: {
          tags: ['saved-search'],
          summary: 'Saves a search: a job copies its results and thumbnails (PENDING, then COMPLETED)',
          body: Type.Object({
            // Longer names get the specification's own message from the service.
            name: Type.String({ maxLength: 200, default: '' }),
            description: Type.String({ maxLength: 2000, default: '' }),
            hash: Type.String({ minLength: 1, maxLength: 64 }),
            image: Type.String({ minLength: 1, maxLength: 1_500_000 }),
          }),
          response: {
            201: Type.Object({ id: Type.Integer(), hash: Type.String(), status: SavedSearchStatus }),
          },
        },
      },
      async (request, reply) => {
        const user = currentUser(request);
        await limitWork(rateLimiter, 'save-search', user);
        return reply.code(201).send(await savedSearches.save(user, request.body));
      },
    );

    app.get(
      '/saved-search',
      {
        schema: {
          tags: ['saved-search'],
          querystring: SavedSearchListQuery,
          response: {
            200: Type.Object({ results: Type.Array(SavedSearch), totalResultCount: Type.Integer() }),
          },
        },
      },
      async (request) => savedSearches.list(currentUser(request), request.query),
    );

    app.get(
      '/saved-search/results/:hash',
      {
        schema: {
          tags: ['saved-search'],
          params: Type.Object({ hash: Type.String({ maxLength: 64 }) }),
          response: {
            200: Type.Object({
              ...savedSearchFields,
              results: Type.Array(SavedResult),
              time: Type.Integer(),
              numberOfResults: Type.Integer(),
            }),
          },
        },
      },
      async (request) => savedSearches.results(currentUser(request), request.params.hash),
    );

    app.get(
      '/saved-search/image/:id',
      { schema: { tags: ['saved-search'], summary: 'The searched face', params: Type.Object({ id: Id }) } },
      async (request, reply) => {
        return sendJpeg(reply, await savedSearches.image(currentUser(request), request.params.id));
      },
    );

    app.get(
      '/saved-search/results/image/:id',
      {
        schema: {
          tags: ['saved-search'],
          summary: 'The thumbnail copied with a saved result',
          params: Type.Object({ id: Id }),
        },
      },
      async (request, reply) => {
        return sendJpeg(reply, await savedSearches.resultImage(currentUser(request), request.params.id));
      },
    );

    app.delete(
      '/saved-search/remove/result',
      {
        schema: {
          tags: ['saved-search'],
          body: Type.Object({
            saveSearchId: Id,
            searchResultIds: Type.Array(Id, { maxItems: 2000 }),
          }),
          response: { 200: Removed },
        },
      },
      async (request) =>
        savedSearches.removeResults(
          currentUser(request),
          request.body.saveSearchId,
          request.body.searchResultIds,
        ),
    );

    app.delete(
      '/saved-search/remove',
      { schema: { tags: ['saved-search'], body: Type.Object({ id: Id }) } },
      async (request, reply) => {
        await savedSearches.remove(currentUser(request), request.body.id);
        return reply.code(204).send();
      },
    );

    app.post(
      '/saved-search/update',
      {
        schema: {
          tags: ['saved-search'],
          body: Type.Object({
            id: Id,
            name: Type.String({ maxLength: 200 }),
            description: Type.String({ maxLength: 2000, default: '' }),
          }),
        },
      },
      async (request, reply) => {
        const { id, name, description } = request.body;
        await savedSearches.update(currentUser(request), id, name, description);
        return reply.code(204).send();
      },
    );

    app.post(
      '/saved-search/generate-report',
      {
        schema: {
          tags: ['saved-search'],
          summary: 'A PDF report of chosen results of one saved search',
          body: Type.Object({ dataResultsId: Type.Array(Id, { minItems: 1, maxItems: 1000 }) }),
        },
      },
      async (request, reply) => {
        const user = currentUser(request);
        await limitReports(rateLimiter, user.id);
        return sendPdf(reply, await savedSearches.report(user, request.body.dataResultsId));
      },
    );
  };
}
