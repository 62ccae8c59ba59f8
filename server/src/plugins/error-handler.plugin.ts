import type { ApiErrorBody } from '@osint/contract/api-types';
import type { Violation } from '@osint/contract/validation';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { HttpError } from '../lib/http-error.ts';

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  409: 'Conflict',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

function body(statusCode: number, message: string, violations?: Violation[]): ApiErrorBody {
  return {
    statusCode,
    error: STATUS_TEXT[statusCode] ?? 'Error',
    message,
    ...(violations ? { violations } : {}),
  };
}

/** Turns schema errors into field violations: "/mail" → "mail"; a missing property names itself. */
function schemaViolations(error: FastifyError): Violation[] {
  const issues = error.validation ?? [];
  // A choice of values (a union of literals) fails every branch: one violation naming the choices,
  // not one "must be equal to constant" per branch.
  const choicePaths = new Set(issues.filter((i) => i.keyword === 'anyOf').map((i) => i.instancePath));
  const choices = new Map<string, unknown[]>();
  for (const issue of issues) {
    if (issue.keyword !== 'const' || !choicePaths.has(issue.instancePath)) continue;
    const allowed = (issue.params as { allowedValue?: unknown }).allowedValue;
    choices.set(issue.instancePath, [...(choices.get(issue.instancePath) ?? []), allowed]);
  }
  return issues
    .filter((issue) => issue.keyword === 'anyOf' || !choices.has(issue.instancePath))
    .map((issue) => {
      const allowed = issue.keyword === 'anyOf' ? choices.get(issue.instancePath) : undefined;
      if (allowed) {
        const field = issue.instancePath.replace(/^\//, '').replace(/\//g, '.') || 'body';
        return { field, message: `${field} must be one of: ${allowed.map(String).join(', ')}` };
      }
      return issueViolation(error, issue);
    });
}

function issueViolation(
  error: FastifyError,
  issue: NonNullable<FastifyError['validation']>[number],
): Violation {
  const missing = (issue.params as { missingProperty?: string } | undefined)?.missingProperty;
  const pathField = issue.instancePath.replace(/^\//, '').replace(/\//g, '.');
  const field = [pathField, missing].filter(Boolean).join('.') || (error.validationContext ?? 'body');
  return {
    field,
    message: missing ? `${missing} is required` : `${field} ${issue.message ?? 'is invalid'}`,
  };
}

function isDataException(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && /^22[0-9A-Z]{3}$/.test(code);
}

/** Socket errors of a database connection that could not be made or was cut. */
const CONNECTION_ERRORS = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENOTFOUND',
]);

/**
 * The database cannot be reached now (restart, failover, too many connections): PostgreSQL's class 08
 * "connection exception", 57P01-57P03 (shut down or starting up), 53300 (too many connections), a
 * refused or cut socket, or the pool's own "connection terminated" / connect timeout. The request was
 * fine; the client may retry, and the pool opens new connections once the server is back.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof code === 'string') {
    if (/^08[0-9A-Z]{3}$/.test(code) || ['57P01', '57P02', '57P03', '53300'].includes(code)) return true;
    if (CONNECTION_ERRORS.has(code)) return true;
  }
  return (
    typeof message === 'string' &&
    /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error)/.test(
      message,
    )
  );
}

export const DATABASE_UNAVAILABLE_MESSAGE =
  'The service is temporarily unavailable. Please try again in a moment.';

/** Every error leaves the API in one shape (ApiErrorBody); unexpected ones never show their details. */
export function registerErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof HttpError) {
      const retryAfter = (error as HttpError & { retryAfterSeconds?: number }).retryAfterSeconds;
      if (retryAfter) void reply.header('retry-after', retryAfter);
      return reply.status(error.statusCode).send(body(error.statusCode, error.message, error.violations));
    }
    if (error.validation) {
      return reply.status(400).send(body(400, 'The request is not valid.', schemaViolations(error)));
    }
    // PostgreSQL's class 22 "data exception": a value from the request that the database cannot hold or
    // read (an id of 10^12 or 1e+26, a NUL character in a text, a date out of range). The value came
    // from the client, so the request is at fault.
    if (isDataException(error)) {
      return reply.status(400).send(body(400, 'The request is not valid.'));
    }
    if (isDatabaseUnavailable(error)) {
      request.log.warn({ err: error }, 'database unavailable');
      void reply.header('retry-after', 5);
      return reply.status(503).send(body(503, DATABASE_UNAVAILABLE_MESSAGE));
    }
    const status = error.statusCode ?? 500;
    if (status === 413) return reply.status(413).send(body(413, 'The request is too large.'));
    if (status >= 400 && status < 500) {
      return reply
        .status(status)
        .send(body(status, status === 415 ? 'Unsupported content type.' : 'The request is not valid.'));
    }
    request.log.error({ err: error }, 'unhandled error');
    return reply.status(500).send(body(500, 'Something went wrong. Please try again later.'));
  });
}

/**
 * Errors Fastify raises before routing (a URL that does not decode, such as `/api/%`): the same shape as
 * every other error, instead of Fastify's own body with its internal error code.
 */
export function frameworkErrorHandler(error: FastifyError, _request: FastifyRequest, reply: FastifyReply) {
  const status =
    error.statusCode && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 400;
  void reply.status(status).send(body(status, 'The request is not valid.'));
}

export function sendApiNotFound(request: FastifyRequest, reply: FastifyReply) {
  return reply.status(404).send(body(404, `No route ${request.method} ${request.url.split('?')[0]}.`));
}
