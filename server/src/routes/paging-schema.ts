import { Type } from '@fastify/type-provider-typebox';

/**
 * A page number of any paged list. Bounded: a page past 100,000 holds nothing anyone reads, and an
 * unbounded one overflowed the database's offset (1e20 gave a bare 400 after a database error).
 */
export const PageNumber = Type.Integer({ minimum: 1, maximum: 100_000, default: 1 });
