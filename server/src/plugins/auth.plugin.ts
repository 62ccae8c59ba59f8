import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.ts';
import { forbidden, unauthorized } from '../lib/http-error.ts';
import type { AuthUser, SessionService } from '../services/session.service.ts';

export const SESSION_COOKIE = 'osint_session';

declare module 'fastify' {
  interface FastifyRequest {
    user: AuthUser | undefined;
  }
}

/** Resolves the session cookie of every API request to `request.user`. */
export function registerAuth(app: FastifyInstance, sessions: SessionService): void {
  app.decorateRequest('user', undefined);
  app.addHook('onRequest', async (request) => {
    if (!request.url.startsWith('/api/')) return;
    const token = request.cookies[SESSION_COOKIE];
    request.user = token ? await sessions.authenticate(token) : undefined;
    // Every admin call is refused here, before validation and before any handler of any admin route runs.
    if (request.url.startsWith('/api/admin/') || request.url.split('?')[0] === '/api/admin')
      await requireAdmin(request);
  });
}

export async function requireUser(request: FastifyRequest): Promise<void> {
  if (!request.user) throw unauthorized();
}

export async function requireAdmin(request: FastifyRequest): Promise<void> {
  if (!request.user) throw unauthorized();
  if (!request.user.isAdmin) throw forbidden('Administrators only.');
}

export function setSessionCookie(reply: FastifyReply, config: Config, token: string): void {
  void reply.setCookie(SESSION_COOKIE, token, {
    path: '/',
    httpOnly: true,
    sameSite: 'lax',
    secure: config.publicUrl.startsWith('https://'),
    maxAge: config.session.absoluteHours * 3600,
  });
}

export function clearSessionCookie(reply: FastifyReply): void {
  void reply.clearCookie(SESSION_COOKIE, { path: '/' });
}

/** The user of a route guarded by requireUser. */
export function currentUser(request: FastifyRequest): AuthUser {
  if (!request.user) throw unauthorized();
  return request.user;
}

export function clientInfo(request: FastifyRequest) {
  return { ip: request.ip ?? null, userAgent: request.headers['user-agent']?.slice(0, 512) ?? null };
}
