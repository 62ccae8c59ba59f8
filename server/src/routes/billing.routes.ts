import { MAX_MONTHS, MAX_USERS } from '@osint/contract/pricing';
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import type { Services } from '../container.ts';
import { currentUser, requireUser } from '../plugins/auth.plugin.ts';
import { sendPdf } from './replies.ts';

const Nullable = <T extends ReturnType<typeof Type.Object>>(schema: T) => Type.Union([schema, Type.Null()]);

export const BillingPlanSchema = Type.Object({
  id: Type.Integer(),
  planType: Type.String(),
  seatLimit: Type.Integer(),
  startDate: Type.String(),
  endDate: Type.String(),
  periodMonths: Type.Integer(),
  usedSeats: Type.Integer(),
});

export const OrderSchema = Type.Object({
  id: Type.Integer(),
  orderNumber: Type.String(),
  orderStatus: Type.String(),
  paymentMethod: Type.String(),
  planKind: Type.String(),
  startDate: Type.String(),
  endDate: Type.String(),
  months: Type.Integer(),
  seatLimit: Type.Integer(),
  basePrice: Type.Number(),
  additionalUserFee: Type.Number(),
  discount: Type.Number(),
  amount: Type.Number(),
  currency: Type.String(),
  orderType: Type.String(),
  addedUsers: Type.Union([Type.Integer(), Type.Null()]),
  createdAt: Type.String(),
  paidAt: Type.Union([Type.String(), Type.Null()]),
  finalInvoiceNumber: Type.Union([Type.String(), Type.Null()]),
});

const BuyerText = Type.String({ maxLength: 1000 });
/** The buyer's optional references printed on the invoices; checked by the service's validator. */
const InvoiceReferenceFields = {
  vatId: Type.Optional(Type.String({ maxLength: 100 })),
  purchaseOrder: Type.Optional(Type.String({ maxLength: 100 })),
};

const BuyerSchema = Type.Object({
  name: BuyerText,
  street: BuyerText,
  cityPostcode: BuyerText,
  city: BuyerText,
  country: BuyerText,
});

/** Plans, orders and bank transfers of the signed-in user's organization (spec 001 §7 Billing and payment). */
export function billingRoutes(services: Services): FastifyPluginAsyncTypebox {
  const { billing, fastspring, rateLimiter } = services;
  // Every order call renders a PDF: 20 a minute per user is far above what a person clicks.
  const limitOrderPdfs = async (request: FastifyRequest) =>
    rateLimiter.hit([`order-pdf:user:${currentUser(request).id}`], 20, 60_000);
  return async (app) => {
    app.addHook('onRequest', requireUser);

    app.get(
      '/user/organization/all-billing-plans',
      {
        schema: {
          tags: ['billing'],
          summary: 'The last expired, the active and the next future plan of the organization',
          response: {
            200: Type.Object({
              expiredBillingPlan: Nullable(BillingPlanSchema),
              activeBillingPlan: Nullable(BillingPlanSchema),
              futureBillingPlan: Nullable(BillingPlanSchema),
            }),
          },
        },
      },
      async (request) => billing.allBillingPlans(currentUser(request)),
    );

    app.get(
      '/user/organization/orders',
      {
        schema: {
          tags: ['billing'],
          summary: 'Orders of the organization, newest first (owners)',
          response: { 200: Type.Array(OrderSchema) },
        },
      },
      async (request) => billing.organizationOrders(currentUser(request)),
    );

    app.get(
      '/billing/config',
      {
        schema: {
          tags: ['billing'],
          summary: 'Card checkout (Store Builder) settings and the bank details of transfers',
          response: {
            200: Type.Object({
              configured: Type.Boolean(),
              storefront: Type.String(),
              accessKey: Type.String(),
              scriptUrl: Type.String(),
              bank: Type.Object({
                accountName: Type.String(),
                accountNumber: Type.String(),
                bankName: Type.String(),
                swift: Type.String(),
                address: Type.String(),
              }),
            }),
          },
        },
      },
      async () => fastspring.checkoutConfig(),
    );

    app.post(
      '/order',
      {
        preHandler: limitOrderPdfs,
        schema: {
          tags: ['billing'],
          summary: 'Creates a PENDING bank-transfer order and answers its proforma invoice (PDF)',
          body: Type.Object({
            seatAmount: Type.Integer({ minimum: 1, maximum: MAX_USERS }),
            startDate: Type.String({ maxLength: 10 }),
            period: Type.Integer({ minimum: 1, maximum: MAX_MONTHS }),
            buyer: BuyerSchema,
            ...InvoiceReferenceFields,
          }),
        },
      },
      async (request, reply) =>
        sendPdf(reply, await billing.createBankOrder(currentUser(request), request.body, request.ip ?? null)),
    );

    app.post(
      '/order/renew',
      {
        preHandler: limitOrderPdfs,
        schema: {
          tags: ['billing'],
          summary:
            'Renews the fixed period in force from the day after it ends: a PENDING bank-transfer order (PDF)',
          body: Type.Object({
            seatAmount: Type.Integer({ minimum: 1, maximum: MAX_USERS }),
            period: Type.Integer({ minimum: 1, maximum: MAX_MONTHS }),
            buyer: BuyerSchema,
            ...InvoiceReferenceFields,
          }),
        },
      },
      async (request, reply) =>
        sendPdf(
          reply,
          await billing.createRenewalOrder(currentUser(request), request.body, request.ip ?? null),
        ),
    );

    app.post(
      '/order/add-users',
      {
        preHandler: limitOrderPdfs,
        schema: {
          tags: ['billing'],
          summary:
            'Adds users to the fixed period in force until it ends: a PENDING bank-transfer order (PDF)',
          body: Type.Object({
            users: Type.Integer({ minimum: 1, maximum: MAX_USERS - 1 }),
            buyer: BuyerSchema,
            ...InvoiceReferenceFields,
          }),
        },
      },
      async (request, reply) =>
        sendPdf(
          reply,
          await billing.createAddUsersOrder(currentUser(request), request.body, request.ip ?? null),
        ),
    );

    app.post(
      '/order/:id/cancel',
      {
        schema: {
          tags: ['billing'],
          summary: 'Cancels an order waiting for payment (owners: their organization’s; admins: any)',
          params: Type.Object({ id: Type.Integer({ minimum: 1 }) }),
          response: { 200: OrderSchema },
        },
      },
      async (request) => {
        const user = currentUser(request);
        // A person cancels an order now and then; each attempt is audited.
        await rateLimiter.hit([`order-cancel:user:${user.id}`], 20, 60_000);
        return billing.cancelOrder(user, request.params.id, request.ip ?? null);
      },
    );

    app.get(
      '/order/download-invoice/:id',
      {
        preHandler: limitOrderPdfs,
        schema: {
          tags: ['billing'],
          summary: 'The proforma invoice of an order of the organization (PDF)',
          params: Type.Object({ id: Type.Integer({ minimum: 1 }) }),
        },
      },
      async (request, reply) =>
        sendPdf(reply, await billing.downloadInvoice(currentUser(request), request.params.id)),
    );

    app.get(
      '/order/download-final-invoice/:id',
      {
        preHandler: limitOrderPdfs,
        schema: {
          tags: ['billing'],
          summary: 'The final (paid, numbered) invoice of a paid bank order of the organization (PDF)',
          params: Type.Object({ id: Type.Integer({ minimum: 1 }) }),
        },
      },
      async (request, reply) =>
        sendPdf(reply, await billing.downloadFinalInvoice(currentUser(request), request.params.id)),
    );
  };
}
