import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Services } from '../container.ts';
import { currentUser, requireAdmin } from '../plugins/auth.plugin.ts';
import { PageNumber } from './paging-schema.ts';

const UserStatus = Type.Union(
  ['EMAIL_UNVERIFIED', 'PENDING_APPROVAL', 'ACTIVE', 'REJECTED', 'BLOCKED', 'INVITED'].map((s) =>
    Type.Literal(s),
  ),
);

const AdminUserRow = Type.Object({
  id: Type.Integer(),
  email: Type.String(),
  status: Type.String(),
  role: Type.String(),
  admin: Type.Boolean(),
  createdAt: Type.String(),
  emailVerifiedAt: Type.Union([Type.String(), Type.Null()]),
  lastActiveAt: Type.Union([Type.String(), Type.Null()]),
  organization: Type.Object({
    id: Type.Integer(),
    name: Type.String(),
    link: Type.String(),
    type: Type.String(),
  }),
});

/** The provider's review of registrations. `status=PENDING` is accepted as a short form of PENDING_APPROVAL. */
export function adminUserRoutes(services: Services): FastifyPluginAsyncTypebox {
  const { adminUsers } = services;
  return async (app) => {
    app.addHook('onRequest', requireAdmin);

    app.get(
      '/admin/users',
      {
        schema: {
          tags: ['admin'],
          querystring: Type.Object({
            status: Type.Optional(Type.Union([UserStatus, Type.Literal('PENDING')])),
            search: Type.Optional(Type.String({ maxLength: 200 })),
            page: PageNumber,
            pageSize: Type.Integer({ minimum: 1, maximum: 200, default: 50 }),
          }),
          response: { 200: Type.Array(AdminUserRow) },
        },
      },
      async (request) => {
        const { status, search, page, pageSize } = request.query;
        return adminUsers.list({
          ...(status ? { status: status === 'PENDING' ? 'PENDING_APPROVAL' : (status as never) } : {}),
          ...(search ? { search } : {}),
          page,
          pageSize,
        });
      },
    );

    const Params = Type.Object({ id: Type.Integer({ minimum: 1 }) });
    app.post('/admin/users/:id/approve', { schema: { tags: ['admin'], params: Params } }, async (request) => {
      await adminUsers.approve(currentUser(request), request.params.id, request.ip);
      return {};
    });
    app.post('/admin/users/:id/reject', { schema: { tags: ['admin'], params: Params } }, async (request) => {
      await adminUsers.reject(currentUser(request), request.params.id, request.ip);
      return {};
    });

    app.get('/admin/users/:id', { schema: { tags: ['admin'], params: Params } }, async (request) =>
      adminUsers.get(request.params.id),
    );
    app.post('/admin/users/:id/block', { schema: { tags: ['admin'], params: Params } }, async (request) => {
      await adminUsers.block(currentUser(request), request.params.id, request.ip);
      return {};
    });
    app.post('/admin/users/:id/unblock', { schema: { tags: ['admin'], params: Params } }, async (request) => {
      await adminUsers.unblock(currentUser(request), request.params.id, request.ip);
      return {};
    });
  };
}
