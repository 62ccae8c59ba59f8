import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { CONTACT_SUBJECTS } from '@osint/contract/validation';
import type { Services } from '../container.ts';

// Base64 makes attachments a third larger: 10 MB of files fit in 14 MB of JSON.
const CONTACT_BODY_LIMIT = 14 * 1024 * 1024;
/** Attempts per IP address in 15 minutes, refused forms included (10 of them may be sent). */
const CONTACT_ATTEMPTS = 60;

export function supportRoutes(services: Services): FastifyPluginAsyncTypebox {
  const { support, rateLimiter } = services;
  return async (app) => {
    app.post(
      '/support/contact-support',
      {
        bodyLimit: CONTACT_BODY_LIMIT,
        // Every attempt counts towards a wider limit before its body is read: a stream of large refused
        // bodies (schema or form errors) must not cost the server their parsing and decoding without end.
        onRequest: async (request) => {
          await rateLimiter.hit([`contact-attempt:ip:${request.ip}`], CONTACT_ATTEMPTS, 15 * 60_000);
        },
        schema: {
          tags: ['support'],
          body: Type.Object({
            email: Type.String({ maxLength: 320 }),
            // The four subjects of the form; a blank one reaches the form's own "Subject is required".
            subject: Type.Union([
              ...CONTACT_SUBJECTS.map((subject) => Type.Literal(subject)),
              Type.String({ pattern: '^\\s*$', maxLength: 200 }),
            ]),
            message: Type.String({ maxLength: 20_000 }),
            files: Type.Optional(
              Type.Array(Type.Object({ fileName: Type.String({ maxLength: 500 }), base64: Type.String() }), {
                maxItems: 20,
              }),
            ),
          }),
          response: { 200: Type.Object({}) },
        },
      },
      async (request) => {
        const message = support.checkMessage(
          { ...request.body, files: request.body.files ?? [] },
          request.user,
        );
        // Only messages that will be sent count: a form corrected ten times is no flood.
        await rateLimiter.hit([`contact:ip:${request.ip}`], 10, 15 * 60_000);
        if (request.user) await rateLimiter.hit([`contact:user:${request.user.id}`], 10, 15 * 60_000);
        await support.contact(message);
        return {};
      },
    );
  };
}
