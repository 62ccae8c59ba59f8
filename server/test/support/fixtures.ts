import type { UserStatus } from '@osint/contract/api-types';
import { sql } from 'kysely';
import { expect } from 'vitest';
import { sha256Hex } from '../../src/crawler/image-process.ts';
import type { Db } from '../../src/db/database.ts';
import { QUEUES } from '../../src/jobs/job-queue.ts';
import { hashPassword } from '../../src/lib/password-hasher.ts';
import { hashToken, newPublicId, newSecureToken } from '../../src/lib/secure-token.ts';
import { readOutbox, type OutboxMessage } from './outbox.ts';
import { sessionCookieOf, type TestApp } from './test-app.ts';

export const FIXTURE_PASSWORD = 'Fixture.Pass1';

/** An approved user in a new organization, created directly in the database. */
export async function createUser(
  t: TestApp,
  options: {
    email: string;
    admin?: boolean;
    role?: 'OWNER' | 'USER';
    organizationId?: number;
    hasAccess?: boolean;
  },
): Promise<{ id: number; organizationId: number }> {
  const organizationId =
    options.organizationId ??
    (
      await t.db
        .insertInto('organizations')
        .values({ name: `Org of ${options.email}`, link: 'https://example.org', type: 'private' })
        .returning('id')
        .executeTakeFirstOrThrow()
    ).id;
  const user = await t.db
    .insertInto('users')
    .values({
      hashed_id: newPublicId(),
      organization_id: organizationId,
      email: options.email,
      password_hash: await hashPassword(FIXTURE_PASSWORD),
      role: options.role ?? 'OWNER',
      is_admin: options.admin ?? false,
      status: 'ACTIVE',
      has_access: options.hasAccess ?? true,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return { id: user.id, organizationId };
}

export async function login(t: TestApp, email: string, password = FIXTURE_PASSWORD): Promise<string> {
  const response = await t.request({
    method: 'POST',
    url: '/api/user/login',
    payload: { mail: email, password },
  });
  return sessionCookieOf(response);
}

export async function createAdmin(t: TestApp, email = 'admin@provider.example.org'): Promise<string> {
  await createUser(t, { email, admin: true });
  return login(t, email);
}

/** A registration body that passes every rule of spec 000 §5, for `POST /api/user/register`. */
export function registrationBody(mail: string, password = FIXTURE_PASSWORD) {
  return {
    mail,
    password,
    organizationName: `Organization of ${mail}`,
    organizationLink: 'https://agency.example.org',
    organizationType: 'government',
    newsletter: false,
  };
}

/** A user in any state of the account life cycle: created approved, then moved to `status`. */
export async function createUserWithStatus(
  t: TestApp,
  options: { email: string; status: UserStatus; role?: 'OWNER' | 'USER'; organizationId?: number },
): Promise<{ id: number; organizationId: number }> {
  const user = await createUser(t, options);
  await t.db.updateTable('users').set({ status: options.status }).where('id', '=', user.id).execute();
  return user;
}

/**
 * An invited user (no password yet) in an existing organization, with a SET_PASSWORD link stored the way
 * the product stores it: only the SHA-256 of the token. Returns the raw token of the link.
 */
export async function createInvitedUser(
  t: TestApp,
  options: { email: string; organizationId: number; validForMs?: number },
): Promise<{ id: number; token: string }> {
  const user = await t.db
    .insertInto('users')
    .values({
      hashed_id: newPublicId(),
      organization_id: options.organizationId,
      email: options.email,
      password_hash: null,
      role: 'USER',
      status: 'INVITED',
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const token = newSecureToken();
  await t.db
    .insertInto('user_tokens')
    .values({
      user_id: user.id,
      purpose: 'SET_PASSWORD',
      token_hash: hashToken(token),
      expires_at: new Date(Date.now() + (options.validForMs ?? 72 * 3_600_000)),
    })
    .execute();
  return { id: user.id, token };
}

export async function findUserByEmail(t: TestApp, email: string) {
  return t.db.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirst();
}

/**
 * Every e-mail the product queued for `to`, whatever its delivery state. Mail goes through the job queue,
 * so an empty list proves nothing was (or will be) sent to that address.
 */
export async function mailJobsTo(t: TestApp, to: string): Promise<{ subject: string }[]> {
  const jobs = await t.db.selectFrom('jobs').select('payload').where('queue', '=', QUEUES.sendMail).execute();
  const payloads = jobs.map(
    (job) =>
      (typeof job.payload === 'string' ? JSON.parse(job.payload) : job.payload) as {
        to: string;
        subject: string;
      },
  );
  return payloads.filter((payload) => payload.to === to);
}

/** Waits until `count` messages to `to` whose subject matches are in the outbox; returns them oldest first. */
export async function waitForMails(
  t: TestApp,
  to: string,
  subject: RegExp,
  count: number,
  timeoutMs = 10_000,
): Promise<OutboxMessage[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = (await readOutbox(t.config.dataDir)).filter(
      (m) => m.to.includes(to) && subject.test(m.subject),
    );
    if (found.length >= count) return found;
    if (Date.now() > deadline)
      throw new Error(
        `${found.length} of ${count} mails to ${to} matching ${subject} within ${timeoutMs} ms`,
      );
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Runs `run` while the database refuses every new job of `queue`: a real CHECK constraint on the jobs
 * table (NOT VALID, so the jobs already there are not checked), dropped again afterwards. The insert of
 * such a job fails as a database error does, in whatever transaction makes it.
 */
export async function withJobsRefused<T>(t: TestApp, queue: string, run: () => Promise<T>): Promise<T> {
  const constraint = sql.id(`test_refuses_${queue.replace(/\W/g, '_')}`);
  await sql`alter table jobs add constraint ${constraint} check (queue <> ${sql.lit(queue)}) not valid`.execute(
    t.db,
  );
  try {
    return await run();
  } finally {
    await sql`alter table jobs drop constraint ${constraint}`.execute(t.db);
  }
}

/** Sessions stored for a user (their ids are hashes of the cookie values). */
export async function sessionCountOf(t: TestApp, userId: number): Promise<number> {
  const rows = await t.db.selectFrom('sessions').select('id').where('user_id', '=', userId).execute();
  return rows.length;
}

/** Crawls the bundled demo sites through the real crawl job and waits until the crawl is done. */
export async function crawlDemoSites(
  t: TestApp,
  target: Parameters<TestApp['container']['services']['crawl']['startDemoCrawlIfIndexEmpty']>[0],
  timeoutMs = 150_000,
): Promise<void> {
  const id = await t.container.services.crawl.startDemoCrawlIfIndexEmpty(target);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const crawl = await t.db
      .selectFrom('crawls')
      .select('status')
      .where('public_id', '=', id!)
      .executeTakeFirstOrThrow();
    if (crawl.status === 'DONE') return;
    if (crawl.status === 'FAILED' || Date.now() > deadline) throw new Error(`demo crawl ${crawl.status}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** Uploads a photo (which must answer 200) and returns its faces: each one's token and crop. */
export async function uploadFaces(
  t: TestApp,
  cookie: string,
  photo: Buffer,
): Promise<{ hash: string; base64: string }[]> {
  const upload = await t.request({
    method: 'POST',
    url: '/api/upload-image',
    cookie,
    payload: { img: photo.toString('base64') },
  });
  expect(upload.statusCode, upload.body).toBe(200);
  return upload.json<{ faces: { hash: string; base64: string }[] }>().faces;
}

/** Uploads a photo, runs a standard search for its first face, and returns the answer with the face crop. */
export async function searchFirstFace<Answer>(
  t: TestApp,
  cookie: string,
  photo: Buffer,
): Promise<Answer & { face: string }> {
  const face = (await uploadFaces(t, cookie, photo))[0]!;
  return { ...(await searchFace<Answer>(t, cookie, face.hash)), face: face.base64 };
}

/** A standard search of one uploaded face (its token, and its crop to keep), which must answer 200. */
export async function searchFace<Answer>(
  t: TestApp,
  cookie: string,
  faceHash: string,
  image?: string,
): Promise<Answer> {
  const search = await t.request({
    method: 'POST',
    url: '/api/search',
    cookie,
    payload: { faces: [faceHash], type: 'OSINT', ...(image && { image }) },
  });
  expect(search.statusCode, search.body).toBe(200);
  return search.json<Answer>();
}

/** Verifies the organization of `email` as law enforcement, as an admin would (it may search minors). */
/**
 * An admin verifies an organization as law enforcement (with a note of the evidence) or withdraws the
 * verification, through the admin API; answers 200.
 */
export async function setLawEnforcement(
  t: TestApp,
  adminCookie: string,
  organizationId: number,
  verified: boolean,
): Promise<void> {
  const response = await t.request({
    method: 'POST',
    url: `/api/admin/organizations/${organizationId}/law-enforcement`,
    cookie: adminCookie,
    payload: verified ? { verified, note: 'Warrant card and ministry letter checked again.' } : { verified },
  });
  expect(response.statusCode, response.body).toBe(200);
}

export async function verifyLawEnforcement(t: TestApp, email: string): Promise<void> {
  await t.db
    .updateTable('organizations')
    .set({ law_enforcement_verified_at: new Date(), law_enforcement_note: 'Verified in a test' })
    .where('id', '=', (eb) => eb.selectFrom('users').select('organization_id').where('email', '=', email))
    .execute();
}

/** A face alert written directly, as the matcher would write one (a small box, fixed addresses). */
export async function insertFaceAlert(
  t: TestApp,
  alert: {
    watchId: number;
    organizationId: number;
    faceId: number | null;
    imageId: number;
    firstIndexedAt: Date;
  },
): Promise<void> {
  await t.db
    .insertInto('face_alerts')
    .values({
      watch_id: alert.watchId,
      organization_id: alert.organizationId,
      face_id: alert.faceId,
      image_id: alert.imageId,
      similarity: 0.9,
      image_url: 'http://127.0.0.1/photo.jpg',
      source_url: 'http://127.0.0.1/',
      first_indexed_at: alert.firstIndexedAt,
      face_box_x: 1,
      face_box_y: 1,
      face_box_width: 40,
      face_box_height: 40,
      log_seq: 1,
    })
    .execute();
}

/** An image a crawl indexed (its bytes' hash only, as the index keeps it) and the address it was seen at. */
export async function insertIndexedImage(
  db: Db,
  { bytes, pageId, url }: { bytes: Buffer; pageId: number; url: string },
): Promise<number> {
  const image = await db
    .insertInto('images')
    .values({ content_hash: sha256Hex(bytes), analyzed_at: new Date() })
    .returning('id')
    .executeTakeFirstOrThrow();
  await db
    .insertInto('image_occurrences')
    .values({ image_id: image.id, page_id: pageId, image_url: url })
    .execute();
  return image.id;
}
