import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Config } from '../config.ts';
import type { Services } from '../container.ts';
import {
  clearSessionCookie,
  clientInfo,
  currentUser,
  requireUser,
  setSessionCookie,
} from '../plugins/auth.plugin.ts';

const Email = Type.String({ maxLength: 320 });
const Password = Type.String({ maxLength: 1024 });
const Ok = Type.Object({});
const MINUTE = 60_000;

/** Accounts: registration, e-mail confirmation, sign-in, passwords, newsletter (spec 000 §7). */
export function userRoutes(services: Services, config: Config): FastifyPluginAsyncTypebox {
  const { account, sessions, rateLimiter } = services;
  return async (app) => {
    app.post(
      '/user/register',
      {
        schema: {
          tags: ['user'],
          body: Type.Object({
            mail: Email,
            password: Password,
            organizationName: Type.String({ maxLength: 1000 }),
            organizationLink: Type.String({ maxLength: 4096 }),
            organizationType: Type.String({ maxLength: 64 }),
            newsletter: Type.Optional(Type.Boolean()),
          }),
          response: { 201: Ok },
        },
      },
      async (request, reply) => {
        const registration = { ...request.body, newsletter: request.body.newsletter ?? false };
        // Only registrations that can go through count: a form corrected ten times is no flood.
        account.checkRegistration(registration);
        await rateLimiter.hit([`register:ip:${request.ip}`], 10, 60 * MINUTE);
        // Per address too: a registration of a taken address mails its owner, and IPs are easily changed.
        // The same for every address, taken or not, so it tells nothing about accounts.
        await rateLimiter.hit([`register:mail:${request.body.mail.trim().toLowerCase()}`], 5, 60 * MINUTE);
        await account.register(registration, clientInfo(request));
        return reply.status(201).send({});
      },
    );

    app.post(
      '/user/resend-verification',
      { schema: { tags: ['user'], body: Type.Object({ mail: Email }), response: { 200: Ok } } },
      async (request) => {
        await rateLimiter.hit(
          [`resend:ip:${request.ip}`, `resend:mail:${request.body.mail.toLowerCase()}`],
          5,
          15 * MINUTE,
        );
        await account.resendVerification(request.body.mail);
        return {};
      },
    );

    app.post(
      '/user/validate/:verificationHash',
      {
        schema: {
          tags: ['user'],
          params: Type.Object({ verificationHash: Type.String({ minLength: 1, maxLength: 200 }) }),
          response: { 200: Ok },
        },
      },
      async (request) => {
        await rateLimiter.hit([`validate:ip:${request.ip}`], 30, 15 * MINUTE);
        await account.verifyEmail(request.params.verificationHash);
        return {};
      },
    );

    app.post(
      '/user/release/:verificationHash',
      {
        schema: {
          tags: ['user'],
          summary: 'Removes an unconfirmed registration: for the owner of an address someone else registered',
          params: Type.Object({ verificationHash: Type.String({ minLength: 1, maxLength: 200 }) }),
          response: { 200: Ok },
        },
      },
      async (request) => {
        await rateLimiter.hit([`validate:ip:${request.ip}`], 30, 15 * MINUTE);
        await account.releaseRegistration(request.params.verificationHash, clientInfo(request));
        return {};
      },
    );

    app.post(
      '/user/login',
      {
        schema: {
          tags: ['user'],
          body: Type.Object({ mail: Email, password: Password }),
          response: { 200: Ok },
        },
      },
      async (request, reply) => {
        const mail = request.body.mail.trim().toLowerCase();
        await rateLimiter.hit([`login:ip:${request.ip}`], 30, 15 * MINUTE);
        const addressLimit = await rateLimiter.count([`login:mail:${mail}`], 10, 15 * MINUTE);
        const token = await account.login(request.body.mail, request.body.password, clientInfo(request), {
          addressLimit,
        });
        // A session the browser already carried (planted or left over) ends: after sign-in only the new one works.
        if (request.user) await sessions.end(request.user.sessionId);
        setSessionCookie(reply, config, token);
        return {};
      },
    );

    app.post(
      '/user/logout',
      { schema: { tags: ['user'], response: { 200: Ok } } },
      async (request, reply) => {
        if (request.user) await sessions.end(request.user.sessionId);
        clearSessionCookie(reply);
        // Whatever the browser kept of this user's pages goes with the session.
        reply.header('clear-site-data', '"cache"');
        return {};
      },
    );

    app.get(
      '/user/user-info',
      {
        preHandler: requireUser,
        schema: {
          tags: ['user'],
          response: {
            200: Type.Object({
              access: Type.Boolean(),
              restricted: Type.Boolean(),
              userRole: Type.Union([Type.Literal('OWNER'), Type.Literal('USER')]),
              admin: Type.Boolean(),
              email: Type.String(),
              hashedId: Type.String(),
              organizationId: Type.Integer(),
              isOwner: Type.Boolean(),
              newsletter: Type.Boolean(),
              planActive: Type.Boolean(),
              organizationBlocked: Type.Boolean(),
            }),
          },
        },
      },
      async (request) => account.getUserInfo(currentUser(request)),
    );

    app.get('/user/organization', { preHandler: requireUser, schema: { tags: ['user'] } }, async (request) =>
      account.getOrganizationData(currentUser(request)),
    );

    app.post(
      '/user/request-reset',
      { schema: { tags: ['user'], body: Type.Object({ email: Email }), response: { 200: Ok } } },
      async (request) => {
        await rateLimiter.hit([`reset:ip:${request.ip}`], 10, 15 * MINUTE);
        await rateLimiter.hit([`reset:mail:${request.body.email.trim().toLowerCase()}`], 3, 15 * MINUTE);
        await account.requestPasswordReset(request.body.email);
        return {};
      },
    );

    const TokenBody = Type.Object({
      token: Type.String({ minLength: 1, maxLength: 200 }),
      newPassword: Password,
    });
    app.post(
      '/user/reset-password',
      { schema: { tags: ['user'], body: TokenBody, response: { 200: Ok } } },
      async (request) => {
        await rateLimiter.hit([`token:ip:${request.ip}`], 20, 15 * MINUTE);
        await account.setPasswordWithToken('RESET_PASSWORD', request.body.token, request.body.newPassword);
        return {};
      },
    );
    app.get(
      '/user/invitation',
      {
        schema: {
          tags: ['user'],
          querystring: Type.Object({ token: TokenBody.properties.token }),
          response: {
            200: Type.Object({
              email: Type.String(),
              organizationName: Type.String(),
              access: Type.Boolean(),
            }),
          },
        },
      },
      async (request) => {
        await rateLimiter.hit([`token:ip:${request.ip}`], 20, 15 * MINUTE);
        return account.invitationDetails(request.query.token);
      },
    );
    app.post(
      '/user/set-password',
      {
        schema: {
          tags: ['user'],
          body: TokenBody,
          response: { 200: Type.Object({ signedIn: Type.Boolean(), access: Type.Boolean() }) },
        },
      },
      async (request, reply) => {
        await rateLimiter.hit([`token:ip:${request.ip}`], 20, 15 * MINUTE);
        const { session, access } = await account.setPasswordWithToken(
          'SET_PASSWORD',
          request.body.token,
          request.body.newPassword,
          clientInfo(request),
        );
        if (!session) return { signedIn: false, access: false };
        // Whoever was signed in in this browser before is signed out: the invited account takes over.
        if (request.user) await sessions.end(request.user.sessionId);
        setSessionCookie(reply, config, session);
        return { signedIn: true, access };
      },
    );

    app.post(
      '/user/subscribe_newsletter',
      {
        preHandler: requireUser,
        schema: { tags: ['user'], body: Type.Object({ subscribed: Type.Boolean() }), response: { 200: Ok } },
      },
      async (request) => {
        await account.setNewsletter(currentUser(request), request.body.subscribed);
        return {};
      },
    );
  };
}
