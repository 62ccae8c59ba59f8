import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { QUERY_FACE_TOKEN_MAX_LENGTH } from '../services/query-face-token.ts';
import type { Services } from '../container.ts';
import { currentUser, requireWorkAccess } from '../plugins/auth.plugin.ts';
import { sendJpeg } from './replies.ts';
import { MatchScoreFields } from './score-schemas.ts';
import { PageNumber } from './paging-schema.ts';
import { limitWork } from '../lib/work-rate-limits.ts';

const SearchType = Type.Union([Type.Literal('OSINT'), Type.Literal('SOCIAL_MEDIA_SEARCH')]);
const AlertStatus = Type.Union([Type.Literal('NEW'), Type.Literal('SEEN')]);
const Id = Type.Integer({ minimum: 1, maximum: 2_147_483_647 });
const Box = Type.Object({
  x: Type.Integer(),
  y: Type.Integer(),
  width: Type.Integer(),
  height: Type.Integer(),
});
const Url = Type.Union([Type.String(), Type.Null()]);

const Watch = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  note: Type.String(),
  type: SearchType,
  muted: Type.Boolean(),
  createdAt: Type.String(),
  endsAt: Type.String(),
  endedAt: Type.Union([Type.String(), Type.Null()]),
  image: Type.Union([Type.String(), Type.Null()]),
  alertCount: Type.Integer(),
  newAlertCount: Type.Integer(),
});

const Alert = Type.Object({
  id: Type.Integer(),
  watchId: Type.Integer(),
  sourceUrl: Url,
  imageUrl: Url,
  thumbnailUrl: Type.String(),
  sourceTitle: Type.String(),
  ...MatchScoreFields,
  faceBox: Box,
  imageSize: Type.Union([Type.Object({ width: Type.Integer(), height: Type.Integer() }), Type.Null()]),
  createdAt: Type.String(),
  status: AlertStatus,
  copies: Type.Array(Type.Object({ thumbnailUrl: Type.String(), imageUrl: Url, sourceUrl: Url })),
});

/** Face watches and their alerts (issue 17): organization work, behind the same access rule as search. */
export function faceWatchRoutes(services: Services): FastifyPluginAsyncTypebox {
  const { faceWatches, rateLimiter } = services;
  return async (app) => {
    app.addHook('onRequest', requireWorkAccess(services.access));

    app.post(
      '/watches',
      {
        schema: {
          tags: ['face-watch'],
          summary:
            'Watches a face: of a search token (faceHash) or the searched face of a search or a saved search (searchHash)',
          body: Type.Object({
            name: Type.String({ minLength: 1, maxLength: 200 }),
            note: Type.Optional(Type.String({ maxLength: 2000 })),
            type: Type.Optional(SearchType),
            faceHash: Type.Optional(Type.String({ minLength: 1, maxLength: QUERY_FACE_TOKEN_MAX_LENGTH })),
            searchHash: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
            endsAt: Type.Optional(Type.String({ format: 'date-time' })),
            faceImage: Type.Optional(Type.String({ minLength: 1, maxLength: 1_500_000 })),
          }),
          response: { 201: Type.Object({ id: Type.Integer() }) },
        },
      },
      async (request, reply) => {
        const user = currentUser(request);
        // A watch of a searched face analyses its kept crop again: the upload's budget.
        await limitWork(rateLimiter, 'upload', user);
        return reply.code(201).send(await faceWatches.create(user, request.body));
      },
    );

    app.get(
      '/watches',
      {
        schema: {
          tags: ['face-watch'],
          summary: "The organization's watches, active first",
          response: { 200: Type.Object({ results: Type.Array(Watch) }) },
        },
      },
      async (request) => faceWatches.list(currentUser(request)),
    );

    app.patch(
      '/watches/:id',
      {
        schema: {
          tags: ['face-watch'],
          summary: 'Mutes or unmutes a watch (alerts are kept, nobody is e-mailed), or renews it',
          params: Type.Object({ id: Id }),
          body: Type.Object({
            muted: Type.Optional(Type.Boolean()),
            endsAt: Type.Optional(Type.String({ format: 'date-time' })),
          }),
        },
      },
      async (request, reply) => {
        await faceWatches.update(currentUser(request), request.params.id, request.body);
        return reply.code(204).send();
      },
    );

    app.delete(
      '/watches/:id',
      {
        schema: {
          tags: ['face-watch'],
          summary: 'Ends a watch and deletes its face descriptor; its alerts stay',
          params: Type.Object({ id: Id }),
        },
      },
      async (request, reply) => {
        await faceWatches.end(currentUser(request), request.params.id);
        return reply.code(204).send();
      },
    );

    app.get(
      '/watches/:id/image',
      { schema: { tags: ['face-watch'], summary: 'The watched face', params: Type.Object({ id: Id }) } },
      async (request, reply) =>
        sendJpeg(reply, await faceWatches.faceImage(currentUser(request), request.params.id)),
    );

    app.post(
      '/watches/:id/search',
      {
        schema: {
          tags: ['face-watch'],
          summary: 'Searches the watched face now (a regular search, to save, report or extract from)',
          params: Type.Object({ id: Id }),
          response: { 200: Type.Object({ searchHash: Type.String() }) },
        },
      },
      async (request) => {
        const user = currentUser(request);
        // A full search, counted with the user's other searches.
        await limitWork(rateLimiter, 'search', user);
        const answer = await faceWatches.searchNow(user, request.params.id);
        return { searchHash: answer.searchHash };
      },
    );

    app.get(
      '/alerts',
      {
        schema: {
          tags: ['face-watch'],
          summary: 'Alerts of the organization, newest first (URLs null for trial plans)',
          querystring: Type.Object({
            pageNumber: PageNumber,
            pageSize: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
            watchId: Type.Optional(Id),
            status: Type.Optional(AlertStatus),
          }),
          response: {
            200: Type.Object({ results: Type.Array(Alert), totalResultCount: Type.Integer() }),
          },
        },
      },
      async (request) => faceWatches.alerts(currentUser(request), request.query),
    );

    app.post(
      '/alerts/seen',
      {
        schema: {
          tags: ['face-watch'],
          summary: 'Marks alerts as seen',
          body: Type.Object({ ids: Type.Array(Id, { minItems: 1, maxItems: 500 }) }),
          response: { 200: Type.Object({ updated: Type.Integer() }) },
        },
      },
      async (request) => faceWatches.markSeen(currentUser(request), request.body.ids),
    );

    app.delete(
      '/alerts/:id',
      {
        schema: { tags: ['face-watch'], summary: 'Removes an alert', params: Type.Object({ id: Id }) },
      },
      async (request, reply) => {
        await faceWatches.removeAlert(currentUser(request), request.params.id);
        return reply.code(204).send();
      },
    );
  };
}
