import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.ts';
import { forbidden, unauthorized } from '../lib/http-error.ts';
import { routedPath } from './canonical-path.plugin.ts';
import type { AccessService } from '../services/access.service.ts';
import type { AuthUser, SessionService } from '../services/session.service.ts';

export const SESSION_COOKIE = 'osint_session';
/**
 * The session cookie's name behind https: the `__Host-` prefix makes browsers accept it only with Secure,
 * Path=/ and no Domain, so a sibling subdomain cannot plant or shadow it. Behind https only this name is
 * read; over plain http only SESSION_COOKIE is (browsers refuse `__Host-` cookies there).
 */
export const SECURE_SESSION_COOKIE = '__Host-osint_session';

declare module 'fastify' {
  interface FastifyRequest {
    user: AuthUser | undefined;
    /** The client reached us over https: PUBLIC_URL is https, or the request came (through a trusted proxy) over https. */
    secureTransport: boolean;
  }
}

export function sessionCookieName(request: FastifyRequest): string {
  return request.secureTransport ? SECURE_SESSION_COOKIE : SESSION_COOKIE;
}

/** Resolves the session cookie of every API request to `request.user`. */
export function registerAuth(app: FastifyInstance, sessions: SessionService, publicUrl: string): void {
  const publicHttps = publicUrl.startsWith('https://');
  app.decorateRequest('user', undefined);
  app.decorateRequest('secureTransport', false);
  app.addHook('onRequest', async (request) => {
    // request.protocol follows X-Forwarded-Proto only when TRUST_PROXY is on.
    request.secureTransport = publicHttps || request.protocol === 'https';
    const path = routedPath(request);
    if (!path.startsWith('/api/')) return;
    const token = request.cookies[sessionCookieName(request)];
    request.user = token ? await sessions.authenticate(token) : undefined;
    // Every admin call is refused here, before validation and before any handler of any admin route runs.
    if (path.startsWith('/api/admin/') || path === '/api/admin') await requireAdmin(request);
  });
}

export async function requireUser(request: FastifyRequest): Promise<void> {
  if (!request.user) throw unauthorized();
}

export async function requireAdmin(request: FastifyRequest): Promise<void> {
  if (!request.user) throw unauthorized();
  if (!request.user.isAdmin) throw forbidden('Administrators only.');
}

/**
 * The one access rule for the organization's work — searches, saved searches (names, notes, faces,
 * results) and extractions, read or written: a signed-in user with a seat in an organization whose plan
 * is in force, or an admin. Registered as an onRequest hook of every route plugin that touches that work,
 * so no route of those plugins can forget it; a member without a seat gets 403, and a caller not signed
 * in 401, before the body is read (uploads are up to 4 MiB) and before any handler runs.
 */
export function requireWorkAccess(access: AccessService) {
  return async (request: FastifyRequest): Promise<void> => {
    await access.require(currentUser(request));
  };
}

export function setSessionCookie(reply: FastifyReply, config: Config, token: string): void {
  const secure = reply.request.secureTransport;
  void reply.setCookie(secure ? SECURE_SESSION_COOKIE : SESSION_COOKIE, token, {
    path: '/',
    httpOnly: true,
    sameSite: 'lax',
    secure,
    maxAge: config.session.absoluteHours * 3600,
  });
}

export function clearSessionCookie(reply: FastifyReply): void {
  const secure = reply.request.secureTransport;
  void reply.clearCookie(secure ? SECURE_SESSION_COOKIE : SESSION_COOKIE, {
    path: '/',
    httpOnly: true,
    sameSite: 'lax',
    secure,
  });
}

/** The user of a route guarded by requireUser. */
export function currentUser(request: FastifyRequest): AuthUser {
  if (!request.user) throw unauthorized();
  return request.user;
}

export function clientInfo(request: FastifyRequest) {
  return { ip: request.ip ?? null, userAgent: request.headers['user-agent']?.slice(0, 512) ?? null };
}
