import { EXTRACTION_NAME_MAX_LENGTH } from '@osint/contract/data-extractor';
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Services } from '../container.ts';
import { currentUser, requireWorkAccess } from '../plugins/auth.plugin.ts';
import {
  Connections,
  DetailsQuery,
  DetailsResponse,
  ListItem,
  ListQuery,
  ListResponse,
  ReportBody,
  Summary,
} from './data-extractor-schemas.ts';
import { sendJpeg, sendPdf } from './replies.ts';
import { limitReports } from './report-rate-limit.ts';
import { limitWork } from '../lib/work-rate-limits.ts';

const Id = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });
const NameBody = Type.Object({
  // Blank and over-long names get the specification's own message from the service.
  name: Type.String({ maxLength: EXTRACTION_NAME_MAX_LENGTH * 2 }),
  description: Type.Optional(Type.String({ maxLength: 2000 })),
});
const Checked = Type.Object({ checked: Type.Boolean() });
const tags = ['data-extractor'];

/** The AI data extractor (spec 001 §7 Data extractor): extractions and results by hashedId. */
export function dataExtractorRoutes(services: Services): FastifyPluginAsyncTypebox {
  const { dataExtractor, rateLimiter } = services;
  return async (app) => {
    app.addHook('onRequest', requireWorkAccess(services.access));

    app.post(
      '/data-extractor',
      {
        // The searched face comes along as a base64 JPEG.
        bodyLimit: 2 * 1024 * 1024,
        schema: {
          tags,
          summary: 'Starts an extraction over a search: a job analyses its results (PENDING, then DONE)',
          body: Type.Object({
            name: Type.Optional(Type.String({ maxLength: EXTRACTION_NAME_MAX_LENGTH * 2 })),
            description: Type.Optional(Type.String({ maxLength: 2000 })),
            searchHash: Type.String({ minLength: 1, maxLength: 64 }),
            image: Type.String({ minLength: 1, maxLength: 1_500_000 }),
          }),
          response: { 201: ListItem },
        },
      },
      async (request, reply) => {
        const user = currentUser(request);
        await limitWork(rateLimiter, 'data-extractor', user);
        return reply.code(201).send(await dataExtractor.start(user, request.body));
      },
    );

    app.get(
      '/data-extractor',
      { schema: { tags, querystring: ListQuery, response: { 200: ListResponse } } },
      async (request) => {
        const viewer = await dataExtractor.userViewer(currentUser(request));
        return dataExtractor.list(viewer, request.query);
      },
    );

    app.patch(
      '/data-extractor/:id',
      { schema: { tags, summary: 'Renames an extraction', params: Id, body: NameBody } },
      async (request, reply) => {
        const { name, description } = request.body;
        await dataExtractor.update(currentUser(request), request.params.id, name, description);
        return reply.code(204).send();
      },
    );

    app.delete('/data-extractor/:id', { schema: { tags, params: Id } }, async (request, reply) => {
      await dataExtractor.remove(currentUser(request), request.params.id);
      return reply.code(204).send();
    });

    app.get(
      '/data-extractor/image/:id',
      { schema: { tags, summary: 'The searched face of an extraction', params: Id } },
      async (request, reply) => {
        const viewer = await dataExtractor.userViewer(currentUser(request));
        return sendJpeg(reply, await dataExtractor.image(viewer, request.params.id));
      },
    );

    app.get(
      '/data-extractor/results/:id',
      {
        schema: {
          tags,
          summary: 'The names summary of an extraction',
          params: Id,
          response: { 200: Summary },
        },
      },
      async (request) => {
        const viewer = await dataExtractor.userViewer(currentUser(request));
        return dataExtractor.summary(viewer, request.params.id);
      },
    );

    app.get(
      '/data-extractor/results/details/:id',
      {
        schema: {
          tags,
          summary: 'A page of an extraction’s results, filtered and sorted',
          params: Id,
          querystring: DetailsQuery,
          response: { 200: DetailsResponse },
        },
      },
      async (request) => {
        const viewer = await dataExtractor.userViewer(currentUser(request));
        return dataExtractor.details(viewer, request.params.id, request.query);
      },
    );

    app.get(
      '/data-extractor/results/:id/connections',
      {
        schema: {
          tags,
          summary: 'Persons seen with the subject on a result',
          params: Id,
          response: { 200: Connections },
        },
      },
      async (request) => {
        const viewer = await dataExtractor.userViewer(currentUser(request));
        return dataExtractor.connections(viewer, request.params.id);
      },
    );

    app.get(
      '/data-extractor/results/connections/image/:id',
      {
        schema: {
          tags,
          summary: 'The photo of a person seen with the subject, named through the face index',
          params: Id,
        },
      },
      async (request, reply) => {
        const viewer = await dataExtractor.userViewer(currentUser(request));
        return sendJpeg(reply, await dataExtractor.connectionImage(viewer, request.params.id));
      },
    );

    app.get(
      '/data-extractor/results/image/:id',
      { schema: { tags, summary: 'The thumbnail kept with a result', params: Id } },
      async (request, reply) => {
        const viewer = await dataExtractor.userViewer(currentUser(request));
        return sendJpeg(reply, await dataExtractor.resultImage(viewer, request.params.id));
      },
    );

    app.patch(
      '/data-extractor/results/:id/checked',
      {
        schema: {
          tags,
          summary: 'Marks a result checked (once checked, it stays so)',
          params: Id,
          response: { 200: Checked },
        },
      },
      async (request) => dataExtractor.markChecked(currentUser(request), request.params.id),
    );

    app.patch(
      '/data-extractor/results/:id/wikipedia/checked',
      {
        schema: {
          tags,
          summary: 'Marks the Wikipedia result of an extraction checked (once checked, it stays so)',
          params: Id,
          response: { 200: Checked },
        },
      },
      async (request) => dataExtractor.markWikipediaChecked(currentUser(request), request.params.id),
    );

    app.patch(
      '/data-extractor/results/:id',
      { schema: { tags, summary: 'Names the person of a result', params: Id, body: NameBody } },
      async (request, reply) => {
        const user = currentUser(request);
        // A new name is matched against the watch-lists and may fetch the page again.
        await limitWork(rateLimiter, 'data-extractor-edit', user);
        const { name, description } = request.body;
        await dataExtractor.updateResult(user, request.params.id, name, description);
        return reply.code(204).send();
      },
    );

    app.delete(
      '/data-extractor/results/:id',
      { schema: { tags, params: Id, response: { 200: Type.Object({ remaining: Type.Integer() }) } } },
      async (request) => dataExtractor.removeResult(currentUser(request), request.params.id),
    );

    app.get(
      '/data-extractor/results/:id/generate-report/all',
      { schema: { tags, summary: 'A PDF report of every result of an extraction', params: Id } },
      async (request, reply) => {
        const user = currentUser(request);
        await limitReports(rateLimiter, user.id);
        const viewer = await dataExtractor.userViewer(user);
        return sendPdf(reply, await dataExtractor.report(viewer, request.params.id, undefined, true));
      },
    );

    app.post(
      '/data-extractor/results/:id/generate-report',
      {
        schema: {
          tags,
          summary: 'A PDF report of chosen results of an extraction',
          params: Id,
          body: ReportBody,
        },
      },
      async (request, reply) => {
        const user = currentUser(request);
        await limitReports(rateLimiter, user.id);
        const viewer = await dataExtractor.userViewer(user);
        const { hashedId, containWikipediaData } = request.body;
        const report = await dataExtractor.report(viewer, request.params.id, hashedId, containWikipediaData);
        return sendPdf(reply, report);
      },
    );
  };
}
