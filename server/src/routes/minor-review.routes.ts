import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { MINOR_REVIEW_REASON_MAX_LENGTH } from '@osint/contract/minor-review';
import type { Services } from '../container.ts';
import { currentUser, requireAdmin, requireWorkAccess } from '../plugins/auth.plugin.ts';
import { QUERY_FACE_TOKEN_MAX_LENGTH } from '../services/query-face-token.ts';
import { PageNumber } from './paging-schema.ts';

export const MinorReviewStatus = Type.Union(
  [
    Type.Literal('PENDING'),
    Type.Literal('APPROVED'),
    Type.Literal('USED'),
    Type.Literal('REFUSED'),
    Type.Literal('EXPIRED'),
  ],
  { description: 'APPROVED: one search of the face may be made; USED: it has been made' },
);

export const MinorReviewView = Type.Object({
  id: Type.Integer(),
  status: MinorReviewStatus,
  createdAt: Type.String(),
  decidedAt: Type.Union([Type.String(), Type.Null()]),
});

const AdminMinorReviewView = Type.Object({
  ...MinorReviewView.properties,
  organization: Type.Object({ id: Type.Integer(), name: Type.String() }),
  requestedBy: Type.Union([Type.String(), Type.Null()]),
  reason: Type.String(),
  decidedBy: Type.Union([Type.String(), Type.Null()]),
  decisionReason: Type.Union([Type.String(), Type.Null()]),
  hasCrop: Type.Boolean({ description: 'The face crop is kept until the decision or for 7 days' }),
});

const Params = Type.Object({ id: Type.Integer({ minimum: 1, maximum: 2_147_483_647 }) });
const Reason = Type.String({ maxLength: MINOR_REVIEW_REASON_MAX_LENGTH + 200 });

/** Reviews by the platform of faces the minors gate refused: the organization's side. */
export function minorReviewRoutes(services: Services): FastifyPluginAsyncTypebox {
  const { minorReviews, rateLimiter } = services;
  return async (app) => {
    app.addHook('onRequest', requireWorkAccess(services.access));

    app.post(
      '/minor-reviews',
      {
        schema: {
          tags: ['search'],
          summary:
            'Asks the platform to review a face refused as a possible minor (organizations not verified as law enforcement)',
          body: Type.Object({
            face: Type.String({
              minLength: 1,
              maxLength: QUERY_FACE_TOKEN_MAX_LENGTH,
              description: "The face's hash from the upload answer",
            }),
            image: Type.String({
              minLength: 1,
              maxLength: 1_500_000,
              description: "The face's crop (base64 JPEG) exactly as the upload answered it",
            }),
            reason: Reason,
          }),
          response: { 201: MinorReviewView },
        },
      },
      async (request, reply) => {
        const user = currentUser(request);
        await rateLimiter.hit([`minor-review:user:${user.id}`], 20, 3_600_000);
        return reply.code(201).send(await minorReviews.request(user, request.body));
      },
    );

    app.get(
      '/minor-reviews/:id',
      {
        schema: {
          tags: ['search'],
          summary: "A review of the organization's (another organization's is not found)",
          params: Params,
          response: { 200: MinorReviewView },
        },
      },
      async (request) => minorReviews.find(currentUser(request), request.params.id),
    );
  };
}

/** The admins' review queue. */
export function adminMinorReviewRoutes(services: Services): FastifyPluginAsyncTypebox {
  const { minorReviews } = services;
  return async (app) => {
    app.addHook('onRequest', requireAdmin);

    app.get(
      '/admin/minor-reviews',
      {
        schema: {
          tags: ['admin'],
          summary: 'Reviews of faces refused as possible minors (pending: oldest first)',
          querystring: Type.Object({
            status: Type.Optional(
              Type.Union([
                Type.Literal('PENDING'),
                Type.Literal('APPROVED'),
                Type.Literal('REFUSED'),
                Type.Literal('EXPIRED'),
              ]),
            ),
            pageNumber: PageNumber,
            pageSize: Type.Integer({ minimum: 1, maximum: 100, default: 25 }),
          }),
          response: {
            200: Type.Object({
              results: Type.Array(AdminMinorReviewView),
              totalResultCount: Type.Integer(),
            }),
          },
        },
      },
      async (request) => minorReviews.list(request.query),
    );

    app.get(
      '/admin/minor-reviews/:id',
      { schema: { tags: ['admin'], params: Params, response: { 200: AdminMinorReviewView } } },
      async (request) => minorReviews.adminFind(request.params.id),
    );

    app.get(
      '/admin/minor-reviews/:id/crop',
      {
        schema: {
          tags: ['admin'],
          summary: 'The face crop of a pending review (deleted once decided or after 7 days)',
          params: Params,
        },
      },
      async (request, reply) =>
        // Not cached: the crop exists only until the decision.
        reply
          .type('image/jpeg')
          .header('cache-control', 'no-store')
          .send(await minorReviews.crop(request.params.id)),
    );

    app.post(
      '/admin/minor-reviews/:id/decision',
      {
        schema: {
          tags: ['admin'],
          summary: 'Approves one search of the face (the person is an adult) or refuses it (final)',
          params: Params,
          body: Type.Object({ approve: Type.Boolean(), reason: Reason }),
          response: { 200: AdminMinorReviewView },
        },
      },
      async (request) =>
        minorReviews.decide(currentUser(request), request.params.id, request.body, request.ip),
    );
  };
}
