import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { END_PLAN_REASON_MAX_LENGTH, LAW_ENFORCEMENT_NOTE_MAX_LENGTH } from '@osint/contract/admin';
import type { Services } from '../container.ts';
import { currentUser, requireAdmin } from '../plugins/auth.plugin.ts';
import { PageNumber } from './paging-schema.ts';

const PlanType = Type.Union([
  Type.Literal('SUBSCRIPTION'),
  Type.Literal('ONE_TIME_PAYMENT'),
  Type.Literal('VIRTUAL'),
  Type.Literal('TRIAL'),
]);

const PlanView = Type.Object({
  id: Type.Integer(),
  planType: PlanType,
  startDate: Type.String(),
  endDate: Type.String(),
  seatLimit: Type.Integer(),
  createdAt: Type.String(),
  state: Type.Union([
    Type.Literal('ACTIVE'),
    Type.Literal('FUTURE'),
    Type.Literal('EXPIRED'),
    Type.Literal('SUPERSEDED'),
    Type.Literal('ENDED'),
  ]),
  endedEarly: Type.Union([Type.Object({ at: Type.String(), reason: Type.String() }), Type.Null()]),
  cardSubscription: Type.Union([
    Type.Object({
      id: Type.String(),
      cancelRequestedAt: Type.Union([Type.String(), Type.Null()]),
      cancelledAt: Type.Union([Type.String(), Type.Null()]),
      cancelError: Type.Union([Type.String(), Type.Null()]),
      cancelledOnEnd: Type.Boolean(),
    }),
    Type.Null(),
  ]),
});

const LawEnforcementStatus = Type.Object({
  verified: Type.Boolean(),
  verifiedAt: Type.Union([Type.String(), Type.Null()]),
  note: Type.Union([Type.String(), Type.Null()]),
});

/** What the list and the detail page both say of an organization. */
const organizationFields = {
  id: Type.Integer(),
  name: Type.String(),
  link: Type.String(),
  type: Type.String(),
  createdAt: Type.String(),
  lastActiveAt: Type.String(),
  owner: Type.Union([
    Type.Object({ id: Type.Integer(), email: Type.String(), status: Type.String() }),
    Type.Null(),
  ]),
};

const OrganizationDetail = Type.Object({
  ...organizationFields,
  users: Type.Array(
    Type.Object({
      id: Type.Integer(),
      email: Type.String(),
      status: Type.String(),
      role: Type.String(),
      access: Type.Boolean(),
      createdAt: Type.String(),
      lastActiveAt: Type.Union([Type.String(), Type.Null()]),
    }),
  ),
  seats: Type.Object({ used: Type.Integer(), limit: Type.Integer() }),
  activePlan: Type.Union([PlanView, Type.Null()]),
  plans: Type.Array(PlanView),
  orders: Type.Array(
    Type.Object({
      id: Type.Integer(),
      orderNumber: Type.String(),
      status: Type.String(),
      paymentMethod: Type.String(),
      amount: Type.Number(),
      currency: Type.String(),
      months: Type.Integer(),
      seatLimit: Type.Integer(),
      startDate: Type.String(),
      endDate: Type.String(),
      createdAt: Type.String(),
      paidAt: Type.Union([Type.String(), Type.Null()]),
    }),
  ),
  searchCount: Type.Integer(),
  faceAlerts: Type.Object({
    activeWatches: Type.Integer(),
    endedWatches: Type.Integer(),
    alerts: Type.Integer(),
    newAlerts: Type.Integer(),
  }),
  lawEnforcement: LawEnforcementStatus,
});

const OrganizationRow = Type.Object({
  ...organizationFields,
  plan: Type.Union([Type.Object({ planType: PlanType, endDate: Type.String() }), Type.Null()]),
  seats: Type.Object({ used: Type.Integer(), limit: Type.Integer() }),
  userCount: Type.Integer(),
  status: Type.String(),
});

const Params = Type.Object({ id: Type.Integer({ minimum: 1 }) });

/** An organization as the provider sees it, and billing plans created by hand (manual and VIRTUAL). */
export function adminOrganizationRoutes(services: Services): FastifyPluginAsyncTypebox {
  const { adminOrganizations } = services;
  return async (app) => {
    app.addHook('onRequest', requireAdmin);

    app.get(
      '/admin/organizations',
      {
        schema: {
          tags: ['admin'],
          querystring: Type.Object({
            pageNumber: PageNumber,
            pageSize: Type.Integer({ minimum: 1, maximum: 100, default: 25 }),
            search: Type.Optional(Type.String({ maxLength: 200 })),
          }),
          response: {
            200: Type.Object({ results: Type.Array(OrganizationRow), totalResultCount: Type.Integer() }),
          },
        },
      },
      async (request) => adminOrganizations.list(request.query),
    );

    app.get(
      '/admin/organizations/:id',
      { schema: { tags: ['admin'], params: Params, response: { 200: OrganizationDetail } } },
      async (request) => adminOrganizations.get(request.params.id),
    );

    app.post(
      '/admin/organizations/:id/billing-plans',
      {
        schema: {
          tags: ['admin'],
          params: Params,
          body: Type.Object({
            planType: PlanType,
            startDate: Type.String({ maxLength: 40 }),
            endDate: Type.String({ maxLength: 40 }),
            seatLimit: Type.Integer(),
          }),
          response: { 201: PlanView },
        },
      },
      async (request, reply) => {
        const plan = await adminOrganizations.createPlan(
          currentUser(request),
          request.params.id,
          request.body,
          request.ip,
        );
        return reply.code(201).send(plan);
      },
    );

    app.post(
      '/admin/billing-plans/:id/end',
      {
        schema: {
          tags: ['admin'],
          summary:
            'Ends a plan now, or cancels one not started yet (a trial included); the reason is required, audited and e-mailed to the owner',
          params: Params,
          body: Type.Object({ reason: Type.String({ maxLength: END_PLAN_REASON_MAX_LENGTH }) }),
          response: { 200: PlanView },
        },
      },
      async (request) =>
        adminOrganizations.endPlan(currentUser(request), request.params.id, request.body, request.ip),
    );

    app.post(
      '/admin/organizations/:id/law-enforcement',
      {
        schema: {
          tags: ['admin'],
          summary:
            'Verifies an organization as law enforcement (a note of the evidence is required) or withdraws it',
          params: Params,
          body: Type.Object({
            verified: Type.Boolean(),
            note: Type.Optional(Type.String({ maxLength: LAW_ENFORCEMENT_NOTE_MAX_LENGTH })),
          }),
          response: { 200: LawEnforcementStatus },
        },
      },
      async (request) =>
        adminOrganizations.setLawEnforcement(
          currentUser(request),
          request.params.id,
          request.body,
          request.ip,
        ),
    );
  };
}
