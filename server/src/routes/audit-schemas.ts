import { Type, type Static, type TSchema } from '@fastify/type-provider-typebox';
import { badRequest } from '../lib/http-error.ts';
import type { AuditFilter } from '../repositories/audit.repository.ts';
import { PageNumber } from './paging-schema.ts';

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

export const AuditEntrySchema = Type.Object({
  id: Type.Integer(),
  at: Type.String(),
  action: Type.String(),
  actor: Type.Union([
    Type.Object({ id: Nullable(Type.Integer()), email: Nullable(Type.String()) }),
    Type.Null(),
  ]),
  organization: Type.Union([Type.Object({ id: Type.Integer(), name: Type.String() }), Type.Null()]),
  target: Nullable(Type.String()),
  detail: Type.Record(Type.String(), Type.Unknown()),
  ip: Nullable(Type.String()),
});

export const AuditPageSchema = Type.Object({
  entries: Type.Array(AuditEntrySchema),
  totalResultCount: Type.Integer(),
});

const DateParam = Type.String({
  maxLength: 40,
  description: 'A day (YYYY-MM-DD, whole day) or an ISO date-time',
});

/** Filters of the audit log, for the admin list, the CSV export and (without organization and user) owners. */
// Ids within the database's integer range: the CSV export streams, and an id beyond it failed only once the
// answer had begun.
const RowId = Type.Integer({ minimum: 1, maximum: 2_147_483_647 });

export const AuditQuerySchema = Type.Object({
  organizationId: Type.Optional(RowId),
  userId: Type.Optional(RowId),
  user: Type.Optional(Type.String({ maxLength: 320, description: 'Part of the actor e-mail address' })),
  action: Type.Optional(Type.String({ maxLength: 100 })),
  from: Type.Optional(DateParam),
  to: Type.Optional(DateParam),
  page: PageNumber,
  pageSize: Type.Integer({ minimum: 1, maximum: 200, default: 50 }),
});

type AuditQuery = Partial<Omit<Static<typeof AuditQuerySchema>, 'page' | 'pageSize'>>;

const DAY_ONLY = /^\d{4}-\d{2}-\d{2}$/;
/**
 * Dates the database can compare with: JavaScript reads years 0 and beyond 9999 that PostgreSQL refuses,
 * and a refusal once the CSV export had begun cut the answer off after its header.
 */
const EARLIEST = Date.UTC(1970, 0, 1);
const LATEST = Date.UTC(9999, 0, 1); // a whole-day 'to' one day later still prints with four digits

/** A day means the whole day (UTC): `to=2024-05-01` includes that day. A day that does not exist is refused. */
function parseDate(value: string | undefined, field: 'from' | 'to'): Date | undefined {
  if (!value) return undefined;
  const day = DAY_ONLY.test(value);
  const date = new Date(day ? `${value}T00:00:00.000Z` : value);
  const time = date.getTime();
  if (
    Number.isNaN(time) ||
    time < EARLIEST ||
    time > LATEST ||
    (day && date.toISOString().slice(0, 10) !== value)
  ) {
    const message = 'Please enter a valid date.';
    throw badRequest(message, [{ field, message }]);
  }
  if (field === 'to' && day) date.setUTCDate(date.getUTCDate() + 1);
  return date;
}

export function auditFilterOf(query: AuditQuery): AuditFilter {
  return {
    organizationId: query.organizationId,
    userId: query.userId,
    userEmail: query.user?.trim() || undefined,
    action: query.action?.trim() || undefined,
    from: parseDate(query.from, 'from'),
    to: parseDate(query.to, 'to'),
  };
}
