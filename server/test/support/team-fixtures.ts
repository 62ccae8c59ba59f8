import sharp from 'sharp';
import type { PlanType } from '@osint/contract/api-types';
import type { OrganizationUser } from '@osint/contract/team';
import { newPublicId } from '../../src/lib/secure-token.ts';
import { createUser, login } from './fixtures.ts';
import type { TestApp } from './test-app.ts';

const DAY = 86_400_000;

/** A plan in force since yesterday for 30 days (or the given period). */
export async function createPlan(
  t: TestApp,
  organizationId: number,
  options: { planType?: PlanType; seatLimit: number; startDate?: Date; endDate?: Date },
) {
  return t.db
    .insertInto('billing_plans')
    .values({
      organization_id: organizationId,
      plan_type: options.planType ?? 'SUBSCRIPTION',
      start_date: options.startDate ?? new Date(Date.now() - DAY),
      end_date: options.endDate ?? new Date(Date.now() + 30 * DAY),
      seat_limit: options.seatLimit,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export interface Member {
  id: number;
  organizationId: number;
  hashedId: string;
  email: string;
  cookie: string;
}

/** An organization owner with a plan, signed in. */
export async function createOwner(
  t: TestApp,
  email: string,
  plan: { planType?: PlanType; seatLimit: number } | null = { seatLimit: 3 },
): Promise<Member> {
  const user = await createUser(t, { email, role: 'OWNER', hasAccess: true });
  if (plan) await createPlan(t, user.organizationId, plan);
  return { ...user, email, hashedId: await hashedIdOf(t, user.id), cookie: await login(t, email) };
}

/** An active user of an existing organization, signed in. */
export async function createMember(
  t: TestApp,
  organizationId: number,
  email: string,
  hasAccess = false,
): Promise<Member> {
  const user = await createUser(t, { email, role: 'USER', organizationId, hasAccess });
  return { ...user, email, hashedId: await hashedIdOf(t, user.id), cookie: await login(t, email) };
}

export async function hashedIdOf(t: TestApp, userId: number): Promise<string> {
  const row = await t.db
    .selectFrom('users')
    .select('hashed_id')
    .where('id', '=', userId)
    .executeTakeFirstOrThrow();
  return row.hashed_id;
}

/**
 * A stored search of `resultCount` results (two by default), as the search API leaves it, with a plain
 * 256-px JPEG kept as its face picture: `face` (base64) is what a save or an extraction of it sends, as a
 * reopened search does.
 */
export async function createSearch(
  t: TestApp,
  user: { id: number; organizationId: number },
  resultCount = 2,
) {
  const faceImage = await sharp({ create: { width: 256, height: 256, channels: 3, background: '#a87' } })
    .jpeg()
    .toBuffer();
  const search = await t.db
    .insertInto('searches')
    .values({
      hashed_id: newPublicId(),
      organization_id: user.organizationId,
      user_id: user.id,
      type: 'OSINT',
      duration_ms: 120,
      result_count: resultCount,
      face_image: faceImage,
    })
    .returning(['id', 'hashed_id'])
    .executeTakeFirstOrThrow();
  // One statement for all of them: a report test makes searches of a thousand results.
  if (resultCount > 0) {
    await t.db
      .insertInto('search_results')
      .values(
        Array.from({ length: resultCount }, (_, rank) => ({
          search_id: search.id,
          record_hash: newPublicId(),
          rank,
          group_key: `g${rank}`,
          similarity: 0.95,
          image_url: `https://news.example.org/${rank}.jpg`,
          source_url: `https://news.example.org/${rank}`,
          crawled_at: new Date(),
        })),
      )
      .execute();
  }
  return { ...search, face: faceImage.toString('base64') };
}

/** A completed saved search of the user, with one saved result (the saved-search job's output). */
/** A saved search of `searchId` whose copy job has not run yet. */
export async function createPendingSave(
  t: TestApp,
  user: { id: number; organizationId: number },
  searchId: number,
) {
  return t.db
    .insertInto('saved_searches')
    .values({
      hashed_id: newPublicId(),
      organization_id: user.organizationId,
      user_id: user.id,
      search_id: searchId,
      name: 'Saved before the deletion',
      type: 'OSINT',
      image: Buffer.from([0xff, 0xd8, 0xff, 0xd9]),
      status: 'PENDING',
    })
    .returning('id')
    .executeTakeFirstOrThrow();
}

export async function createSavedSearch(t: TestApp, user: { id: number; organizationId: number }) {
  const saved = await t.db
    .insertInto('saved_searches')
    .values({
      hashed_id: newPublicId(),
      organization_id: user.organizationId,
      user_id: user.id,
      name: 'SEARCH 01.05.2024, 10:00',
      type: 'OSINT',
      image: Buffer.from([0xff, 0xd8, 0xff, 0xd9]),
      status: 'COMPLETED',
      result_count: 1,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  await t.db
    .insertInto('saved_search_results')
    .values({
      saved_search_id: saved.id,
      record_hash: newPublicId(),
      rank: 0,
      group_key: 'g0',
      similarity: 0.97,
      image_url: 'https://news.example.org/0.jpg',
      source_url: 'https://news.example.org/0',
      crawled_at: new Date(),
    })
    .execute();
  return saved;
}

export async function organizationUsers(t: TestApp, cookie: string): Promise<OrganizationUser[]> {
  const response = await t.request({ method: 'GET', url: '/api/user/organization/users', cookie });
  if (response.statusCode !== 200) throw new Error(`users list ${response.statusCode}: ${response.body}`);
  return response.json<OrganizationUser[]>();
}

export async function auditActions(t: TestApp, organizationId: number): Promise<string[]> {
  const rows = await t.db
    .selectFrom('audit_log')
    .select('action')
    .where('organization_id', '=', organizationId)
    .orderBy('id')
    .execute();
  return rows.map((r) => r.action);
}
