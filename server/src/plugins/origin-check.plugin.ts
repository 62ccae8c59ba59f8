import type { FastifyInstance } from 'fastify';
import { forbidden } from '../lib/http-error.ts';
import { routedPath } from './canonical-path.plugin.ts';

const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Cross-site request forgery guard: a state-changing API call must come from the product's own origin
 * (PUBLIC_URL, or the origin the request was addressed to). Signed webhooks are exempt.
 */
export function registerOriginCheck(app: FastifyInstance, publicUrl: string, exemptPrefixes: string[]): void {
  const publicOrigin = new URL(publicUrl).origin;
  app.addHook('onRequest', async (request) => {
    const path = routedPath(request);
    if (!STATE_CHANGING.has(request.method) || !path.startsWith('/api/')) return;
    if (exemptPrefixes.some((prefix) => path.startsWith(prefix))) return;
    const origin = request.headers.origin;
    const ownOrigin = `${request.protocol}://${request.headers.host ?? ''}`;
    if (!origin || (origin !== publicOrigin && origin !== ownOrigin)) {
      throw forbidden('This request must come from the application itself.');
    }
  });
}
