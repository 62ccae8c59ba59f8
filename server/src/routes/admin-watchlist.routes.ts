import type { Readable } from 'node:stream';
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import {
  WATCHLIST_DEFAULT_NAME,
  WATCHLIST_MAX_UPLOAD_BYTES,
  WATCHLIST_MESSAGES,
  WATCHLIST_NAME_PATTERN,
} from '@osint/contract/watchlist';
import type { Services } from '../container.ts';
import { HttpError } from '../lib/http-error.ts';
import { currentUser, requireAdmin } from '../plugins/auth.plugin.ts';

const Format = Type.Union([Type.Literal('ftm'), Type.Literal('csv')]);
const Counts = {
  listName: Type.String(),
  format: Format,
  entryCount: Type.Integer(),
  politicianCount: Type.Integer(),
  sanctionsCount: Type.Integer(),
  criminalCount: Type.Integer(),
  importedAt: Type.String(),
};
const ImportResult = Type.Object({ ...Counts, skippedCount: Type.Integer() });
const Summary = Type.Object({ ...Counts, importedBy: Type.Union([Type.String(), Type.Null()]) });
const ListName = Type.String({ pattern: WATCHLIST_NAME_PATTERN, minLength: 1, maxLength: 80 });

const tooLarge = () => new HttpError(413, WATCHLIST_MESSAGES.tooLarge);

/** The request body as it arrives, refused with 413 once it passes `limit` bytes. */
async function* limited(stream: Readable, limit: number): AsyncGenerator<Uint8Array> {
  let received = 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    received += chunk.length;
    if (received > limit) {
      stream.destroy();
      throw tooLarge();
    }
    yield chunk;
  }
}

/**
 * Watch-lists of the AI data extractor: an admin uploads an OpenSanctions file (FollowTheMoney JSON
 * lines or the simple CSV) as the raw body; it replaces the list of the same name.
 */
export function adminWatchlistRoutes(services: Services): FastifyPluginAsyncTypebox {
  const { watchlists } = services;
  return async (app) => {
    app.addHook('onRequest', requireAdmin);
    // The file is read as a stream by the handler, whatever content type the client gave it (this
    // plugin's parsers only; the rest of the API keeps parsing JSON).
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('*', (_request, payload, done) => done(null, payload));

    app.post(
      '/admin/watchlists',
      {
        schema: {
          tags: ['admin'],
          querystring: Type.Object({ name: Type.Optional(ListName) }),
          response: { 200: ImportResult },
        },
      },
      async (request) => {
        const declared = Number(request.headers['content-length'] ?? 0);
        if (declared > WATCHLIST_MAX_UPLOAD_BYTES) throw tooLarge();
        const body = request.body as Readable | undefined;
        const source = body ? limited(body, WATCHLIST_MAX_UPLOAD_BYTES) : (async function* () {})();
        return watchlists.importFile({
          listName: request.query.name ?? WATCHLIST_DEFAULT_NAME,
          source,
          importedBy: currentUser(request).id,
          ip: request.ip,
        });
      },
    );

    app.get(
      '/admin/watchlists',
      {
        schema: {
          tags: ['admin'],
          response: { 200: Type.Object({ lists: Type.Array(Summary) }) },
        },
      },
      async () => watchlists.list(),
    );

    app.delete(
      '/admin/watchlists/:listName',
      {
        schema: {
          tags: ['admin'],
          params: Type.Object({ listName: ListName }),
          response: { 204: Type.Null() },
        },
      },
      async (request, reply) => {
        await watchlists.delete(request.params.listName, { id: currentUser(request).id, ip: request.ip });
        return reply.code(204).send(null);
      },
    );
  };
}
