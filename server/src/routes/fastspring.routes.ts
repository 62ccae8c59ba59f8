import { MAX_MONTHS, MAX_USERS } from '@osint/contract/pricing';
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Services } from '../container.ts';
import { currentUser, requireUser } from '../plugins/auth.plugin.ts';

/** FastSpring: the Store Builder session of a checkout, and the signed webhook. */
export function fastspringRoutes(services: Services): FastifyPluginAsyncTypebox {
  const { fastspring, rateLimiter } = services;
  return async (app) => {
    app.post(
      '/fastspring/create-session',
      {
        preHandler: requireUser,
        schema: {
          tags: ['fastspring'],
          summary: 'The Store Builder session (secure payload and key) of a pricing-page selection',
          body: Type.Object({
            organizationId: Type.Integer(),
            startDate: Type.String({ maxLength: 10 }),
            productSelections: Type.Array(
              Type.Object({
                productId: Type.String({ maxLength: 100 }),
                quantity: Type.Integer({ minimum: 0, maximum: Math.max(MAX_MONTHS, MAX_USERS) }),
              }),
              { minItems: 1, maxItems: 5 },
            ),
          }),
          response: { 200: Type.Object({ payload: Type.String(), key: Type.String() }) },
        },
      },
      async (request) => {
        const user = currentUser(request);
        // The pricing page asks again 500 ms after each change of the selection: 60 a minute is far
        // above what a person does, and keeps a script from minting sessions (each an RSA encryption).
        await rateLimiter.hit([`checkout-session:user:${user.id}`], 60, 60_000);
        return fastspring.createSession(user, request.body);
      },
    );

    // The webhook reads its body as raw bytes: the signature covers exactly what FastSpring sent, and
    // nothing is parsed before it is verified. Only this plugin's scope parses JSON this way.
    await app.register(async (webhook) => {
      webhook.removeAllContentTypeParsers();
      webhook.addContentTypeParser(
        '*',
        { parseAs: 'buffer', bodyLimit: 2 * 1024 * 1024 },
        (_request, body, done) => done(null, body),
      );
      webhook.post(
        '/fastspring/webhook',
        {
          schema: {
            tags: ['fastspring'],
            summary: 'FastSpring events, signed with X-FS-Signature (HMAC-SHA256 of the body, base64)',
            headers: Type.Object({ 'x-fs-signature': Type.Optional(Type.String({ maxLength: 200 })) }),
          },
        },
        async (request, reply) => {
          const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
          const signature = request.headers['x-fs-signature'];
          const results = await fastspring.handleWebhook(
            body,
            typeof signature === 'string' ? signature : undefined,
          );
          // FastSpring marks as processed the event ids listed in the answer, one per line.
          return reply.type('text/plain').send(results.map((result) => result.id).join('\n'));
        },
      );
    });
  };
}
