import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Services } from '../container.ts';
import { currentUser, requireAdmin } from '../plugins/auth.plugin.ts';
import { sendPdf } from './replies.ts';
import { limitReports } from './report-rate-limit.ts';
import { PageNumber } from './paging-schema.ts';

const Params = Type.Object({ id: Type.Integer({ minimum: 1 }) });
const Paging = {
  page: PageNumber,
  pageSize: Type.Integer({ minimum: 1, maximum: 200, default: 50 }),
};

/** The provider's view of orders and payments; marking a bank transfer as paid starts its plan. */
export function adminBillingRoutes(services: Services): FastifyPluginAsyncTypebox {
  const { billing, rateLimiter } = services;
  return async (app) => {
    app.addHook('onRequest', requireAdmin);

    app.get(
      '/admin/orders',
      {
        schema: {
          tags: ['admin'],
          querystring: Type.Object({
            status: Type.Optional(
              Type.Union([Type.Literal('PENDING'), Type.Literal('COMPLETED'), Type.Literal('CANCELED')]),
            ),
            search: Type.Optional(Type.String({ maxLength: 200 })),
            ...Paging,
          }),
        },
      },
      async (request) => {
        const { status, search, page, pageSize } = request.query;
        return billing.adminOrders({
          ...(status ? { status } : {}),
          ...(search?.trim() ? { search: search.trim() } : {}),
          page,
          pageSize,
        });
      },
    );

    app.get('/admin/orders/:id', { schema: { tags: ['admin'], params: Params } }, async (request) =>
      billing.adminOrder(request.params.id),
    );

    app.get(
      '/admin/orders/:id/invoice',
      { schema: { tags: ['admin'], params: Params, summary: 'The proforma invoice of a bank order (PDF)' } },
      async (request, reply) => {
        await limitReports(rateLimiter, currentUser(request).id);
        return sendPdf(reply, await billing.adminInvoice(currentUser(request), request.params.id));
      },
    );

    app.get(
      '/admin/orders/:id/final-invoice',
      {
        schema: { tags: ['admin'], params: Params, summary: 'The final invoice of a paid bank order (PDF)' },
      },
      async (request, reply) => {
        await limitReports(rateLimiter, currentUser(request).id);
        return sendPdf(reply, await billing.adminFinalInvoice(currentUser(request), request.params.id));
      },
    );

    app.post(
      '/admin/orders/:id/mark-paid',
      {
        schema: {
          tags: ['admin'],
          params: Params,
          summary: 'The bank transfer arrived: completes the order and creates its ONE_TIME_PAYMENT plan',
        },
      },
      async (request) => billing.markPaid(currentUser(request), request.params.id, request.ip ?? null),
    );

    app.get(
      '/admin/payments',
      {
        schema: {
          tags: ['admin'],
          querystring: Type.Object({
            source: Type.Optional(Type.Union([Type.Literal('FASTSPRING'), Type.Literal('BANK_TRANSFER')])),
            ...Paging,
          }),
        },
      },
      async (request) => {
        const { source, page, pageSize } = request.query;
        return billing.adminPayments({ ...(source ? { source } : {}), page, pageSize });
      },
    );

    app.get('/admin/payments/:id', { schema: { tags: ['admin'], params: Params } }, async (request) =>
      billing.adminPayment(request.params.id),
    );
  };
}
