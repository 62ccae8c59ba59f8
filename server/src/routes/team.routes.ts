import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Services } from '../container.ts';
import { currentUser, requireUser } from '../plugins/auth.plugin.ts';
import { AuditPageSchema, AuditQuerySchema, auditFilterOf } from './audit-schemas.ts';

const Ok = Type.Object({});
const SeatBody = Type.Object({
  userHashedId: Type.String({ minLength: 1, maxLength: 64 }),
  organizationId: Type.Integer({ minimum: 1 }),
});

/**
 * Giving and removing seats count together per user: an owner going through a team of 100 stays well
 * below it, and a script cannot flood the audit log and the seat lock of its organization.
 */
const SEAT_CHANGES_PER_MINUTE = 60;

const OrganizationUser = Type.Object({
  hashedId: Type.String(),
  email: Type.String(),
  access: Type.Boolean(),
  status: Type.Union([Type.Literal('ACTIVE'), Type.Literal('PENDING'), Type.Literal('BLOCKED')]),
  userRole: Type.Union([Type.Literal('OWNER'), Type.Literal('USER')]),
  organization: Type.Object({ id: Type.Integer() }),
  createdAt: Type.String(),
  lastActiveAt: Type.Union([Type.String(), Type.Null()]),
});

/** The owner's team: invitations, seats, users, and the organization's audit log (spec 000 §7). */
export function teamRoutes(services: Services): FastifyPluginAsyncTypebox {
  const { team, auditLog, rateLimiter } = services;
  return async (app) => {
    app.addHook('onRequest', requireUser);

    app.post(
      '/user/invite',
      {
        schema: {
          tags: ['team'],
          body: Type.Object({
            email: Type.String({ maxLength: 320 }),
            giveAccess: Type.Optional(Type.Boolean()),
          }),
          response: { 200: Ok },
        },
      },
      async (request) => {
        const owner = currentUser(request);
        await rateLimiter.hit([`invite:user:${owner.id}`], 50, 60 * 60_000);
        await team.invite(owner, request.body.email, request.ip, { giveAccess: request.body.giveAccess });
        return {};
      },
    );

    app.post(
      '/user/give',
      { schema: { tags: ['team'], body: SeatBody, response: { 200: Ok } } },
      async (request) => {
        const owner = currentUser(request);
        await rateLimiter.hit([`seat-change:user:${owner.id}`], SEAT_CHANGES_PER_MINUTE, 60_000);
        const { userHashedId, organizationId } = request.body;
        await team.giveAccess(owner, userHashedId, organizationId, request.ip);
        return {};
      },
    );

    app.post(
      '/user/remove',
      { schema: { tags: ['team'], body: SeatBody, response: { 200: Ok } } },
      async (request) => {
        const owner = currentUser(request);
        await rateLimiter.hit([`seat-change:user:${owner.id}`], SEAT_CHANGES_PER_MINUTE, 60_000);
        const { userHashedId, organizationId } = request.body;
        await team.removeAccess(owner, userHashedId, organizationId, request.ip);
        return {};
      },
    );

    app.delete(
      '/user/:hashedId',
      {
        schema: {
          tags: ['team'],
          params: Type.Object({ hashedId: Type.String({ minLength: 1, maxLength: 64 }) }),
          response: { 200: Ok },
        },
      },
      async (request) => {
        await team.deleteUser(currentUser(request), request.params.hashedId, request.ip);
        return {};
      },
    );

    app.delete(
      '/user/invitation/:hashedId',
      {
        schema: {
          tags: ['team'],
          summary: 'Withdraws a pending invitation: the link stops working and its seat is free again',
          params: Type.Object({ hashedId: Type.String({ minLength: 1, maxLength: 64 }) }),
          response: { 200: Ok },
        },
      },
      async (request) => {
        await team.withdrawInvitation(currentUser(request), request.params.hashedId, request.ip);
        return {};
      },
    );

    app.get(
      '/user/organization/users',
      { schema: { tags: ['team'], response: { 200: Type.Array(OrganizationUser) } } },
      async (request) => team.listUsers(currentUser(request)),
    );

    app.get(
      '/user/organization/audit',
      {
        schema: {
          tags: ['team'],
          querystring: Type.Omit(AuditQuerySchema, ['organizationId', 'user']),
          response: { 200: AuditPageSchema },
        },
      },
      async (request) => {
        const { page, pageSize, ...query } = request.query;
        return auditLog.listForOrganization(currentUser(request), auditFilterOf(query), page, pageSize);
      },
    );
  };
}
