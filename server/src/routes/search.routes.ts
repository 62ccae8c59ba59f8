import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Services } from '../container.ts';
import { currentUser, requireWorkAccess } from '../plugins/auth.plugin.ts';
import { QUERY_FACE_TOKEN_MAX_LENGTH } from '../services/query-face-token.ts';
import { sendJpeg } from './replies.ts';

// The body is JSON with the photo in base64 (a third larger than the file). The 1.5 MB limit itself is
// checked on the decoded bytes, so that an oversized photo gets the specification's own 413 message.
const UPLOAD_BODY_LIMIT = 4 * 1024 * 1024;

const SearchResult = Type.Object({
  id: Type.Integer(),
  hash: Type.String(),
  group: Type.String(),
  thumbnailUrl: Type.String(),
  imageUrl: Type.Union([Type.String(), Type.Null()]),
  sourceUrl: Type.Union([Type.String(), Type.Null()]),
  sourceTitle: Type.String(),
  crawledAt: Type.String(),
  similarity: Type.Number(),
});

const DetectedFace = Type.Object({
  hash: Type.String(),
  base64: Type.String({ description: 'JPEG of the face, base64' }),
  box: Type.Object(
    { x: Type.Integer(), y: Type.Integer(), width: Type.Integer(), height: Type.Integer() },
    { description: "The face's box in the uploaded photo, in pixels" },
  ),
  small: Type.Boolean({ description: 'Under reliableFaceSize pixels: searchable, but less reliable' }),
});

/** Face search (spec 001 §7 Search). */
export function searchRoutes(services: Services): FastifyPluginAsyncTypebox {
  const { search, rateLimiter } = services;
  return async (app) => {
    app.addHook('preHandler', requireWorkAccess(services.access));

    app.post(
      '/upload-image',
      {
        bodyLimit: UPLOAD_BODY_LIMIT,
        schema: {
          tags: ['search'],
          summary:
            'Detects the faces of a photo (JPG, PNG, BMP, TIFF; at most 1.5 MB); the photo is not stored',
          body: Type.Object({ img: Type.String({ minLength: 1 }) }),
          response: {
            200: Type.Object({
              faces: Type.Array(DetectedFace, { description: 'Faces offered for search, largest first' }),
              smallFaceCount: Type.Integer({
                description: 'Faces found but smaller than minFaceSize, not offered for search',
              }),
              smallFaceSizes: Type.Array(Type.Integer(), {
                description: 'Shorter box side (pixels) of each face too small to search, largest first',
              }),
              minFaceSize: Type.Integer({
                description: 'Smallest searchable face (width and height, pixels)',
              }),
              reliableFaceSize: Type.Integer({
                description: 'Offered faces under this size (width or height, pixels) are marked small',
              }),
            }),
          },
        },
      },
      async (request) => {
        const user = currentUser(request);
        await rateLimiter.hit([`upload:user:${user.id}`], 60, 60_000);
        return search.uploadImage(user, request.body.img);
      },
    );

    app.post(
      '/search',
      {
        schema: {
          tags: ['search'],
          body: Type.Object({
            faces: Type.Array(Type.String({ maxLength: QUERY_FACE_TOKEN_MAX_LENGTH }), {
              minItems: 1,
              maxItems: 20,
            }),
            type: Type.Union([Type.Literal('OSINT'), Type.Literal('SOCIAL_MEDIA_SEARCH')]),
          }),
          response: {
            200: Type.Object({
              results: Type.Array(SearchResult),
              time: Type.Integer(),
              numberOfResults: Type.Integer(),
              searchHash: Type.String(),
            }),
          },
        },
      },
      async (request) => {
        const user = currentUser(request);
        await rateLimiter.hit([`search:user:${user.id}`], 60, 60_000);
        return search.search(user, request.body.faces, request.body.type);
      },
    );

    app.post(
      '/search/remove-records',
      {
        schema: {
          tags: ['search'],
          body: Type.Object({
            hash: Type.String({ maxLength: 64 }),
            recordHashes: Type.Array(Type.String({ maxLength: 64 }), { maxItems: 1000 }),
          }),
          response: { 200: Type.Object({ removed: Type.Integer() }) },
        },
      },
      async (request) =>
        search.removeRecords(currentUser(request), request.body.hash, request.body.recordHashes),
    );

    app.get(
      '/thumbnails/:imageId',
      { schema: { tags: ['search'], params: Type.Object({ imageId: Type.Integer({ minimum: 1 }) }) } },
      async (request, reply) => sendJpeg(reply, await search.thumbnail(request.params.imageId)),
    );
  };
}
