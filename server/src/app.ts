import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import cookie from '@fastify/cookie';
import helmet from '@fastify/helmet';
import fastifyStatic from '@fastify/static';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify';
import { checkoutCspSources } from './billing/checkout-csp.ts';
import type { Config } from './config.ts';
import { createContainer, type Container } from './container.ts';
import type { Db } from './db/database.ts';
import { registerAuth } from './plugins/auth.plugin.ts';
import {
  frameworkErrorHandler,
  registerErrorHandler,
  sendApiNotFound,
} from './plugins/error-handler.plugin.ts';
import { registerOriginCheck } from './plugins/origin-check.plugin.ts';
import { accountRoutes } from './routes/account.routes.ts';
import { adminAuditRoutes } from './routes/admin-audit.routes.ts';
import { adminBillingRoutes } from './routes/admin-billing.routes.ts';
import { adminCrawlRoutes } from './routes/admin-crawl.routes.ts';
import { adminWatchlistRoutes } from './routes/admin-watchlist.routes.ts';
import { billingRoutes } from './routes/billing.routes.ts';
import { fastspringRoutes } from './routes/fastspring.routes.ts';
import { adminOrganizationRoutes } from './routes/admin-organization.routes.ts';
import { adminUserRoutes } from './routes/admin-user.routes.ts';
import { healthRoutes } from './routes/health.routes.ts';
import { metricsRoutes } from './routes/metrics.routes.ts';
import { adminJobsRoutes } from './routes/admin-jobs.routes.ts';
import { faceWatchRoutes } from './routes/face-watch.routes.ts';
import { savedSearchRoutes } from './routes/saved-search.routes.ts';
import { dataExtractorRoutes } from './routes/data-extractor.routes.ts';
import { adminDataExtractorRoutes } from './routes/admin-data-extractor.routes.ts';
import { adminSavedSearchRoutes } from './routes/admin-saved-search.routes.ts';
import { adminDashboardRoutes } from './routes/admin-dashboard.routes.ts';
import { searchRoutes } from './routes/search.routes.ts';
import { adminMinorReviewRoutes, minorReviewRoutes } from './routes/minor-review.routes.ts';
import { supportRoutes } from './routes/support.routes.ts';
import { teamRoutes } from './routes/team.routes.ts';
import { userRoutes } from './routes/user.routes.ts';
import { maskUrlSecrets } from './lib/url-secrets.ts';
import { registerCanonicalPath } from './plugins/canonical-path.plugin.ts';

const HSTS = 'max-age=31536000; includeSubDomains';

/**
 * What a request's log line says about it. Secrets that travel in URLs (the e-mail verification hash in
 * the API call and in the page the mail links to, token= and similar query parameters) are masked so that
 * logs never hold a working link.
 */
function logRequest(request: FastifyRequest) {
  return {
    method: request.method,
    url: maskUrlSecrets(request.url),
    host: request.host,
    remoteAddress: request.ip,
  };
}

/** Signed third-party callbacks that cannot carry our Origin header. */
const ORIGIN_CHECK_EXEMPT = ['/api/fastspring/webhook'];

export interface BuiltApp {
  app: FastifyInstance;
  container: Container;
}

/** Builds the HTTP application over an open, migrated database. Tests use it with `app.inject`. */
export async function buildApp(
  config: Config,
  db: Db,
  options: { logger?: boolean } = {},
): Promise<BuiltApp> {
  const app = Fastify({
    logger: options.logger === false ? false : { level: config.logLevel, serializers: { req: logRequest } },
    bodyLimit: 1024 * 1024,
    // One proxy in front, the peer of every connection: the client is the address that proxy appended
    // to X-Forwarded-For (the last one), never what the client itself wrote before it (rate limits and
    // known places go by this address). Fastify refuses a bare hop count, hence the function.
    trustProxy: process.env.TRUST_PROXY === '1' ? (_address: string, hop: number) => hop === 0 : false,
    frameworkErrors: frameworkErrorHandler,
    // One id per request in every log line and in the X-Request-Id answer header; a proxy's own id is
    // kept when it is a plain token.
    genReqId: (req) => {
      const incoming = req.headers['x-request-id'];
      return typeof incoming === 'string' && /^[\w.-]{1,64}$/.test(incoming) ? incoming : randomUUID();
    },
    ajv: {
      customOptions: { removeAdditional: true, coerceTypes: 'array', useDefaults: true, allErrors: false },
    },
  }).withTypeProvider<TypeBoxTypeProvider>();

  const container = createContainer(config, db, app.log);

  // The card checkout (FastSpring Store Builder) loads its script and opens its frame from these origins.
  const checkoutSources = checkoutCspSources(config.billing);
  await app.register(cookie);
  await app.register(helmet, {
    contentSecurityPolicy: {
      directives: {
        defaultSrc: ["'self'"],
        imgSrc: ["'self'", 'data:', 'blob:', ...checkoutSources],
        styleSrc: ["'self'", "'unsafe-inline'"],
        scriptSrc: ["'self'", ...checkoutSources],
        connectSrc: ["'self'", ...checkoutSources],
        frameSrc: ["'self'", ...checkoutSources],
        objectSrc: ["'none'"],
        frameAncestors: ["'none'"],
      },
    },
    strictTransportSecurity: false,
    xFrameOptions: { action: 'deny' },
    // Pages that carry tokens in their URL (reset password, set password, verify e-mail) must not leak
    // them to other sites: no Referer anywhere.
    referrerPolicy: { policy: 'no-referrer' },
  });
  registerErrorHandler(app);
  registerCanonicalPath(app);
  registerOriginCheck(app, config.publicUrl, ORIGIN_CHECK_EXEMPT);
  registerAuth(app, container.services.sessions, config.publicUrl);
  app.addHook('onRequest', async (request, reply) => {
    void reply.header('x-request-id', request.id);
  });
  app.addHook('onResponse', async (request, reply) => {
    if (!request.url.startsWith('/api/')) return;
    container.services.metrics.observeRequest(
      request.method,
      request.routeOptions.url,
      reply.statusCode,
      reply.elapsedTime / 1000,
    );
  });
  // HSTS only where the browser reached us over https (PUBLIC_URL https, or X-Forwarded-Proto behind a
  // trusted proxy); over plain http it would be meaningless.
  app.addHook('onRequest', async (request, reply) => {
    if (request.secureTransport) void reply.header('strict-transport-security', HSTS);
  });

  await app.register(swagger, {
    openapi: {
      info: {
        title: 'OSINT Platform API',
        version: '1.0.0',
        description: 'Face search and OSINT for verified organizations.',
      },
      components: { securitySchemes: { session: { type: 'apiKey', in: 'cookie', name: 'osint_session' } } },
    },
  });
  await app.register(swaggerUi, { routePrefix: '/api/docs' });

  await app.register(
    async (api) => {
      await api.register(healthRoutes(db));
      await api.register(metricsRoutes(container.services));
      await api.register(adminJobsRoutes(container.services));
      await api.register(userRoutes(container.services, config));
      await api.register(supportRoutes(container.services));
      await api.register(adminUserRoutes(container.services));
      await api.register(adminCrawlRoutes(container.services));
      await api.register(adminWatchlistRoutes(container.services));
      await api.register(searchRoutes(container.services));
      await api.register(minorReviewRoutes(container.services));
      await api.register(adminMinorReviewRoutes(container.services));
      await api.register(savedSearchRoutes(container.services));
      await api.register(faceWatchRoutes(container.services));
      await api.register(dataExtractorRoutes(container.services));
      await api.register(adminDataExtractorRoutes(container.services));
      await api.register(adminSavedSearchRoutes(container.services));
      await api.register(adminDashboardRoutes(container.services));
      await api.register(billingRoutes(container.services));
      await api.register(fastspringRoutes(container.services));
      await api.register(adminBillingRoutes(container.services));
      await api.register(teamRoutes(container.services));
      await api.register(accountRoutes(container.services));
      await api.register(adminOrganizationRoutes(container.services));
      await api.register(adminAuditRoutes(container.services));
    },
    { prefix: '/api' },
  );

  registerWebApp(app, config.webDistDir);
  app.addHook('onClose', async () => {
    // Running crawls stop first (they queue their remainder), or the job runner would wait for them.
    await container.services.crawl.shutdown();
    await container.jobRunner.stop();
    await container.services.faceIndex.stop();
    await container.services.faceAlerts.stop();
    await container.services.faceEngine.close();
    await container.services.reports.close();
    container.mailTransport.close();
  });
  return { app, container };
}

/**
 * Serves the built single-page app: files from the build folder, and index.html for every other GET
 * outside /api so that client-side routes survive a reload.
 */
function registerWebApp(app: FastifyInstance, distDir: string): void {
  const hasBuild = fs.existsSync(path.join(distDir, 'index.html'));
  if (hasBuild) void app.register(fastifyStatic, { root: distDir, index: 'index.html', wildcard: true });
  app.setNotFoundHandler((request, reply) => {
    if (request.method !== 'GET' || request.url.startsWith('/api/')) return sendApiNotFound(request, reply);
    if (!hasBuild) {
      return reply
        .type('text/plain')
        .send('The web app is not built yet: run `npm run build` (npm start does it for you).');
    }
    return reply.header('cache-control', 'no-cache').sendFile('index.html');
  });
}
