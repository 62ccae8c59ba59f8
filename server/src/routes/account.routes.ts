import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Services } from '../container.ts';
import { clearSessionCookie, currentUser, requireUser } from '../plugins/auth.plugin.ts';

const Password = Type.String({ maxLength: 1024 });
const Ok = Type.Object({});
const MINUTE = 60_000;

/** The Settings panel of the account page: change password, delete account (spec 000 §7). */
export function accountRoutes(services: Services): FastifyPluginAsyncTypebox {
  const { accountSettings, rateLimiter } = services;
  return async (app) => {
    app.addHook('onRequest', requireUser);

    app.post(
      '/user/change-password',
      {
        schema: {
          tags: ['user'],
          body: Type.Object({ currentPassword: Password, newPassword: Password }),
          response: { 200: Ok },
        },
      },
      async (request) => {
        const user = currentUser(request);
        await rateLimiter.hit([`password-check:user:${user.id}`], 10, 15 * MINUTE);
        await accountSettings.changePassword(user, request.body, request.ip);
        return {};
      },
    );

    app.delete(
      '/user/delete',
      {
        schema: { tags: ['user'], body: Type.Object({ password: Password }), response: { 200: Ok } },
      },
      async (request, reply) => {
        const user = currentUser(request);
        await rateLimiter.hit([`password-check:user:${user.id}`], 10, 15 * MINUTE);
        await accountSettings.deleteAccount(user, request.body.password, request.ip);
        clearSessionCookie(reply);
        return {};
      },
    );
  };
}
