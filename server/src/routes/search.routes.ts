import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { MAX_ADDED_RESULT_FACES, MAX_IMAGE_URL_LENGTH, MAX_QUERY_FACES } from '@osint/contract/search';
import type { Services } from '../container.ts';
import { currentUser, requireWorkAccess } from '../plugins/auth.plugin.ts';
import { QUERY_FACE_TOKEN_MAX_LENGTH } from '../services/query-face-token.ts';
import { MinorReviewView } from './minor-review.routes.ts';
import { sendJpeg, sendPdf } from './replies.ts';
import { MatchScoreFields } from './score-schemas.ts';
import { limitReports } from './report-rate-limit.ts';
import { PageNumber } from './paging-schema.ts';
import { limitWork } from '../lib/work-rate-limits.ts';

// The body is JSON with the photo in base64 (a third larger than the file). The 1.5 MB limit itself is
// checked on the decoded bytes, so that an oversized photo gets the specification's own 413 message.
const UPLOAD_BODY_LIMIT = 4 * 1024 * 1024;

const Box = Type.Object({
  x: Type.Integer(),
  y: Type.Integer(),
  width: Type.Integer(),
  height: Type.Integer(),
});
const SearchType = Type.Union([Type.Literal('OSINT'), Type.Literal('SOCIAL_MEDIA_SEARCH')]);
/** Search hashes are 16 base64url characters; anything else names no search. */
const SearchHash = Type.String({ minLength: 1, maxLength: 64 });

const SearchResult = Type.Object({
  id: Type.Integer(),
  hash: Type.String(),
  group: Type.String(),
  thumbnailUrl: Type.String(),
  imageUrl: Type.Union([Type.String(), Type.Null()]),
  sourceUrl: Type.Union([Type.String(), Type.Null()]),
  sourceTitle: Type.String(),
  crawledAt: Type.String(),
  ...MatchScoreFields,
  faceBox: Type.Union([Box, Type.Null()], {
    description: "The matched face's box in the result image, in that image's pixels",
  }),
  imageSize: Type.Union([Type.Object({ width: Type.Integer(), height: Type.Integer() }), Type.Null()], {
    description: 'The result image in pixels (its thumbnail is smaller: scale faceBox by the ratio)',
  }),
});

const searchAnswerFields = {
  results: Type.Array(SearchResult),
  time: Type.Integer(),
  numberOfResults: Type.Integer(),
  searchHash: Type.String(),
};

const DetectedFace = Type.Object({
  hash: Type.String(),
  base64: Type.String({ description: 'JPEG of the face, base64' }),
  box: Type.Object(Box.properties, { description: "The face's box in the uploaded photo, in pixels" }),
  small: Type.Boolean({ description: 'Under reliableFaceSize pixels: searchable, but less reliable' }),
  possibleMinor: Type.Boolean({
    description:
      'The age estimate says the face may belong to a person under 18: searching it answers 403 unless the organization is verified law enforcement',
  }),
  review: Type.Union([MinorReviewView, Type.Null()], {
    description:
      "The platform's latest review of this face, for possible minors of organizations that are not law enforcement (APPROVED: one search allowed)",
  }),
});

/** The faces of a query photo (POST /api/upload-image and /api/upload-image-url). */
const UploadAnswer = Type.Object({
  faces: Type.Array(DetectedFace, { description: 'Faces offered for search, largest first' }),
  smallFaceCount: Type.Integer({
    description: 'Faces found but smaller than minFaceSize, not offered for search',
  }),
  smallFaceSizes: Type.Array(Type.Integer(), {
    description: 'Shorter box side (pixels) of each face too small to search, largest first',
  }),
  smallFaceBoxes: Type.Array(Box, {
    description: "Box of each face too small to search, in the photo's pixels, as smallFaceSizes orders them",
  }),
  minFaceSize: Type.Integer({
    description: 'Smallest searchable face (width and height, pixels)',
  }),
  reliableFaceSize: Type.Integer({
    description: 'Offered faces under this size (width or height, pixels) are marked small',
  }),
  minorsSearchable: Type.Boolean({
    description: 'The organization is verified law enforcement: faces marked possibleMinor may be searched',
  }),
});

/** Face search (spec 001 §7 Search). */
export function searchRoutes(services: Services): FastifyPluginAsyncTypebox {
  const { search, searchRefinement, rateLimiter } = services;
  return async (app) => {
    app.addHook('onRequest', requireWorkAccess(services.access));

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
            200: UploadAnswer,
          },
        },
      },
      async (request) => {
        const user = currentUser(request);
        await limitWork(rateLimiter, 'upload', user);
        return search.uploadImage(user, request.body.img);
      },
    );

    app.post(
      '/upload-image-url',
      {
        schema: {
          tags: ['search'],
          summary:
            'Detects the faces of the photo at a web address, fetched by the server with the limits of an upload; the photo is not stored',
          body: Type.Object({
            url: Type.String({
              minLength: 1,
              maxLength: MAX_IMAGE_URL_LENGTH,
              description: 'http(s) address of the photo',
            }),
          }),
          response: { 200: UploadAnswer },
        },
      },
      async (request) => {
        const user = currentUser(request);
        // One budget with uploads: a photo by address costs the face engine as much as an uploaded one.
        await limitWork(rateLimiter, 'upload', user);
        return search.uploadImageUrl(user, request.body.url);
      },
    );

    app.post(
      '/search',
      {
        // Up to 20 face tokens and their 256-px crops: more than the default 1 MiB may be needed.
        bodyLimit: UPLOAD_BODY_LIMIT,
        schema: {
          tags: ['search'],
          body: Type.Object({
            faces: Type.Array(Type.String({ maxLength: QUERY_FACE_TOKEN_MAX_LENGTH }), {
              minItems: 1,
              maxItems: MAX_QUERY_FACES,
            }),
            type: SearchType,
            image: Type.Optional(
              Type.String({
                minLength: 1,
                maxLength: 1_500_000,
                description:
                  "The chosen face's crop (base64 JPEG) from the upload answer, kept with the search",
              }),
            ),
            otherImages: Type.Optional(
              // A crop the upload answered is a 256-px JPEG of some tens of kilobytes.
              Type.Array(Type.String({ minLength: 1, maxLength: 200_000 }), {
                maxItems: MAX_QUERY_FACES - 1,
                description:
                  "The other searched faces' crops (base64 JPEG) from their upload answers, kept with the search so that searching it again and watching it use every face; needs image",
              }),
            ),
          }),
          response: { 200: Type.Object(searchAnswerFields) },
        },
      },
      async (request) => {
        const user = currentUser(request);
        await limitWork(rateLimiter, 'search', user);
        const { faces, type, image, otherImages } = request.body;
        return search.search(user, faces, type, { faceImage: image, otherFaceImages: otherImages });
      },
    );

    app.post(
      '/search/:searchHash/with-results',
      {
        schema: {
          tags: ['search'],
          description:
            "Searches again with the search's face and the faces of the chosen results (the analyst's judgement that they show the same person): a new search, answered as POST /api/search answers",
          params: Type.Object({ searchHash: SearchHash }),
          body: Type.Object({
            recordHashes: Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
              minItems: 1,
              maxItems: MAX_ADDED_RESULT_FACES,
              description: "The chosen results' hashes",
            }),
          }),
          response: { 200: Type.Object(searchAnswerFields) },
        },
      },
      async (request) => {
        const user = currentUser(request);
        // A new search, counted as one.
        await limitWork(rateLimiter, 'search', user);
        return searchRefinement.searchWithResults(user, request.params.searchHash, request.body.recordHashes);
      },
    );

    // A static path: find-my-way prefers it to /search/:searchHash whatever the order of registration.
    app.get(
      '/search/history',
      {
        schema: {
          tags: ['search'],
          summary: "The organization's searches, newest first (kept until 30 days of inactivity)",
          querystring: Type.Object({
            pageNumber: PageNumber,
            pageSize: Type.Integer({ minimum: 1, maximum: 100, default: 10 }),
          }),
          response: {
            200: Type.Object({
              results: Type.Array(
                Type.Object({
                  searchHash: Type.String(),
                  type: SearchType,
                  createdAt: Type.String(),
                  userEmail: Type.Union([Type.String(), Type.Null()]),
                  numberOfResults: Type.Integer(),
                  image: Type.Union([Type.String(), Type.Null()], {
                    description: 'URL of the searched face',
                  }),
                }),
              ),
              totalResultCount: Type.Integer(),
            }),
          },
        },
      },
      async (request) => search.history(currentUser(request), request.query),
    );

    app.post(
      '/search/generate-report',
      {
        schema: {
          tags: ['search'],
          summary: 'A PDF report of a search (saved or not): the chosen results, or every result shown',
          body: Type.Object({
            searchHash: SearchHash,
            resultIds: Type.Optional(
              Type.Array(Type.Integer({ minimum: 1, maximum: 2_147_483_647 }), {
                minItems: 1,
                maxItems: 1000,
              }),
            ),
          }),
        },
      },
      async (request, reply) => {
        const user = currentUser(request);
        await limitReports(rateLimiter, user.id);
        return sendPdf(reply, await search.report(user, request.body.searchHash, request.body.resultIds));
      },
    );

    app.get(
      '/search/:searchHash',
      {
        schema: {
          tags: ['search'],
          summary: 'A search of the organization, as POST /api/search answered it (removed results left out)',
          params: Type.Object({ searchHash: SearchHash }),
          response: {
            200: Type.Object({
              ...searchAnswerFields,
              type: SearchType,
              createdAt: Type.String(),
              image: Type.Union([Type.String(), Type.Null()], { description: 'URL of the searched face' }),
              addedFaceCount: Type.Integer({
                description: 'Results chosen to search again with, searched together with that face',
              }),
              otherFaceCount: Type.Integer({
                description:
                  'Other uploaded faces of the person (other photos), searched together with that face',
              }),
            }),
          },
        },
      },
      async (request) => search.find(currentUser(request), request.params.searchHash),
    );

    app.get(
      '/search/:searchHash/image',
      {
        schema: {
          tags: ['search'],
          summary: 'The searched face',
          params: Type.Object({ searchHash: SearchHash }),
        },
      },
      async (request, reply) =>
        sendJpeg(reply, await search.faceImage(currentUser(request), request.params.searchHash)),
    );

    app.delete(
      '/search/:searchHash',
      { schema: { tags: ['search'], params: Type.Object({ searchHash: SearchHash }) } },
      async (request, reply) => {
        await search.remove(currentUser(request), request.params.searchHash);
        return reply.code(204).send();
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
      async (request, reply) =>
        sendJpeg(reply, await search.thumbnail(currentUser(request), request.params.imageId)),
    );
  };
}
