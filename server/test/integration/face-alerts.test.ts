import { POSSIBLE_MINOR_MESSAGE, SEARCH_MESSAGES } from '@osint/contract/search';
import path from 'node:path';
import type { AdminOrganizationDetail } from '@osint/contract/admin';
import { sql } from 'kysely';
import sharp from 'sharp';
import { MATCH_THRESHOLD, SHIPPED_SCORE_MODEL } from '@osint/contract/match-score';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { QUEUES } from '../../src/jobs/job-queue.ts';
import { ENDED_WATCHES_LISTED, FaceWatchRepository } from '../../src/repositories/face-watch.repository.ts';
import { WebIndexRepository } from '../../src/repositories/web-index.repository.ts';
import { modelOfPipeline } from '../../src/services/face-model.service.ts';
import type { CrawlDetail } from '../../src/services/crawl.service.ts';
import type { FaceAlert } from '@osint/contract/face-alerts';
import {
  watchBinding,
  WATCH_LIMIT_MESSAGE,
  WATCHES_PER_SEAT,
} from '../../src/services/face-watch.service.ts';
import { TestServer, bytes, html, page } from '../crawler/test-server.ts';
import {
  createAdmin,
  insertFaceAlert,
  mailJobsTo,
  searchFace,
  setLawEnforcement,
  uploadFaces,
  verifyLawEnforcement,
} from '../support/fixtures.ts';
import { createMember, createOwner, type Member } from '../support/team-fixtures.ts';
import { waitForMail } from '../support/outbox.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { TEST_DATABASE_KIND } from '../support/test-database.ts';

// Face alerts end to end (issue 17): an analyst watches a face from an upload; the real crawl job indexes
// local sites; the matcher follows face_index_log and raises alerts, e-mails the owner, folds copies of a
// photo into one alert, ignores strangers, survives a crash mid-batch and a replay of the log without
// duplicates, and loses the alert when the person opts out.

const SAMPLES = path.resolve(import.meta.dirname, '../../../node_modules/@vladmandic/face-api/demo');
const sample = (n: number) => sharp(path.join(SAMPLES, `sample${n}.jpg`));
/** The face watched: one person of sample1 (1920 px wide), in the photo's pixels. */
const PERSON = { left: 1374, top: 147, size: 390 };
const ALERT_SUBJECT = 'New face alerts';

let t: TestApp;
let adminCookie: string;
let analyst: Member;
let other: Member;
const sites: TestServer[] = [];
const photos = {} as Record<'portrait' | 'group' | 'groupCopy' | 'stranger', Buffer>;

/** A one-page site showing one photo. */
async function siteWith(title: string, photo: Buffer): Promise<TestServer> {
  const server = await TestServer.start({
    '/': html(
      page(title, `<figure><img src="/photo.jpg" alt="Photo"><figcaption>${title}</figcaption></figure>`),
    ),
    '/photo.jpg': bytes(photo, 'image/jpeg'),
  });
  sites.push(server);
  return server;
}

async function crawl(server: TestServer): Promise<CrawlDetail> {
  const response = await t.request({
    method: 'POST',
    url: '/api/admin/crawl',
    cookie: adminCookie,
    payload: { urls: [`http://127.0.0.1:${server.port}/`] },
  });
  expect(response.statusCode, response.body).toBe(202);
  const id = response.json<{ id: string }>().id;
  const deadline = Date.now() + 60_000;
  for (;;) {
    const detail = (
      await t.request({ method: 'GET', url: `/api/admin/crawls/${id}`, cookie: adminCookie })
    ).json<CrawlDetail>();
    if (detail.status === 'DONE') return detail;
    if (detail.status === 'FAILED' || Date.now() > deadline) throw new Error(`crawl ${detail.status}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function alertsOf(member: Member, query = '') {
  const response = await t.request({ method: 'GET', url: `/api/alerts${query}`, cookie: member.cookie });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<{ results: FaceAlert[]; totalResultCount: number }>();
}

/** The owner of a new one-seat organization verified as law enforcement, and the token of a photo's face. */
async function lawEnforcementOwnerWithFace(email: string, photo: Buffer) {
  const member = await createOwner(t, email, { seatLimit: 1 });
  await verifyLawEnforcement(t, email);
  const face = (await uploadFaces(t, member.cookie, photo))[0]!;
  return { member, faceHash: face.hash, faceCrop: face.base64 };
}

/**
 * The owner of a new law-enforcement organization watching someone of sample 2 (the person of sample 1
 * opts out in one of the steps), and the watch's id.
 */
async function watchSomeoneOfSample2(email: string) {
  const { member, faceHash } = await lawEnforcementOwnerWithFace(email, photos.stranger);
  const created = await t.request({
    method: 'POST',
    url: '/api/watches',
    cookie: member.cookie,
    payload: { faceHash, name: `Watched by ${email}` },
  });
  expect(created.statusCode, created.body).toBe(201);
  return { member, id: created.json<{ id: number }>().id };
}

/**
 * A member (not the owner) of a new two-seat law-enforcement organization watching someone of sample 2:
 * the organization's owner, the member, and the watch's id.
 */
async function memberWatchingSomeoneOfSample2(domain: string) {
  const owner = await createOwner(t, `owner@${domain}`, { seatLimit: 2 });
  await verifyLawEnforcement(t, owner.email);
  const member = await createMember(t, owner.organizationId, `analyst@${domain}`, true);
  const face = (await uploadFaces(t, member.cookie, photos.stranger))[0]!;
  const created = await t.request({
    method: 'POST',
    url: '/api/watches',
    cookie: member.cookie,
    payload: { faceHash: face.hash, name: 'Watched by a member' },
  });
  expect(created.statusCode, created.body).toBe(201);
  return { owner, member, watchId: created.json<{ id: number }>().id };
}

/** Sample 2 at another size: new bytes, so crawling it indexes its faces again. */
const copyOfSample2 = (width: number) => sample(2).resize(width).jpeg({ quality: 80 }).toBuffer();

const alertMails = async () =>
  (await mailJobsTo(t, analyst.email)).filter((mail) => mail.subject === ALERT_SUBJECT);
const matcher = () => t.container.services.faceAlerts;

/** An hour has passed since the watch's last e-mail: its digest job runs. */
async function digestDue(watchId: number) {
  await t.db
    .updateTable('face_watches')
    .set({ notified_at: new Date(Date.now() - 2 * 3_600_000) })
    .where('id', '=', watchId)
    .execute();
  await matcher().runDigestJob({ watchId });
}

describe(`face alerts (${TEST_DATABASE_KIND})`, () => {
  let watchId: number;
  let firstSite: TestServer;

  beforeAll(async () => {
    photos.portrait = await sample(1)
      .extract({ left: PERSON.left, top: PERSON.top, width: PERSON.size, height: PERSON.size })
      .resize(300)
      .jpeg({ quality: 90 })
      .toBuffer();
    photos.group = await sample(1).resize(640).jpeg({ quality: 85 }).toBuffer();
    // The same photo elsewhere: smaller and recompressed (other bytes, same perceptual hash).
    photos.groupCopy = await sample(1).resize(600).jpeg({ quality: 60 }).toBuffer();
    photos.stranger = await sample(2).resize(640).jpeg({ quality: 85 }).toBuffer();
    t = await createTestApp({
      crawl: { politenessDelayMs: 10, trustedAddresses: ['127.0.0.1'], jobSliceMs: 2000 },
    });
    adminCookie = await createAdmin(t);
    analyst = await createOwner(t, 'analyst@alerts.example.org');
    other = await createOwner(t, 'owner@other-org.example.org');
    // The sample photos' faces may be flagged as possible minors: that gate has its own tests.
    await verifyLawEnforcement(t, analyst.email);
  }, 60_000);

  afterAll(async () => {
    await t?.close();
    for (const site of sites) await site.close();
  });

  it('watches a face from an upload; the descriptor is stored sealed', async () => {
    const upload = await t.request({
      method: 'POST',
      url: '/api/upload-image',
      cookie: analyst.cookie,
      payload: { img: photos.portrait.toString('base64') },
    });
    expect(upload.statusCode, upload.body).toBe(200);
    const face = upload.json<{ faces: { hash: string; base64: string }[] }>().faces[0]!;
    const faceHash = face.hash;

    // The picture kept with the watch must be the chosen face's crop, not another face's.
    const stranger = await t.request({
      method: 'POST',
      url: '/api/upload-image',
      cookie: analyst.cookie,
      payload: { img: photos.stranger.toString('base64') },
    });
    const swapped = await t.request({
      method: 'POST',
      url: '/api/watches',
      cookie: analyst.cookie,
      payload: {
        faceHash,
        name: 'Subject of case 17',
        faceImage: stranger.json<{ faces: { base64: string }[] }>().faces[0]!.base64,
      },
    });
    expect(swapped.statusCode).toBe(400);
    expect(swapped.json<{ message: string }>().message).toBe(SEARCH_MESSAGES.faceImageMismatch);

    const created = await t.request({
      method: 'POST',
      url: '/api/watches',
      cookie: analyst.cookie,
      payload: { faceHash, name: 'Subject of case 17', faceImage: face.base64 },
    });
    expect(created.statusCode, created.body).toBe(201);
    watchId = created.json<{ id: number }>().id;

    const list = await t.request({ method: 'GET', url: '/api/watches', cookie: analyst.cookie });
    expect(list.json()).toEqual({
      results: [
        expect.objectContaining({ id: watchId, name: 'Subject of case 17', endedAt: null, alertCount: 0 }),
      ],
    });
    // Ends in 90 days by default.
    const endsAt = new Date(list.json<{ results: { endsAt: string }[] }>().results[0]!.endsAt).getTime();
    expect(Math.abs(endsAt - (Date.now() + 90 * 86_400_000))).toBeLessThan(60_000);
    // Another organization neither sees nor ends it; a token of another organization is refused.
    expect((await t.request({ method: 'GET', url: '/api/watches', cookie: other.cookie })).json()).toEqual({
      results: [],
    });
    const foreign = await t.request({
      method: 'DELETE',
      url: `/api/watches/${watchId}`,
      cookie: other.cookie,
    });
    expect(foreign.statusCode).toBe(404);
    const stolen = await t.request({
      method: 'POST',
      url: '/api/watches',
      cookie: other.cookie,
      payload: { faceHash, name: 'Not ours' },
    });
    expect(stolen.statusCode).toBe(400);

    // Sealed at rest: neither the query token's descriptor nor any plain float vector is stored.
    const row = await t.db
      .selectFrom('face_watches')
      .select(['descriptor_sealed', 'model_id'])
      .where('id', '=', watchId)
      .executeTakeFirstOrThrow();
    const opened = await t.container.services.queryFaces.open(faceHash, analyst.organizationId);
    const plain = Buffer.from(opened!.descriptor.buffer);
    expect(row.descriptor_sealed!.includes(plain.subarray(0, 32))).toBe(false);
    expect(row.model_id).toBe(opened!.modelId);
  });

  it('a new page with the watched person raises one alert with its box and page, and one e-mail, once even after a crash mid-batch', async () => {
    expect(await matcher().drain()).toEqual(expect.objectContaining({ alerts: 0 }));
    firstSite = await siteWith('Riverton news', photos.group);
    await crawl(firstSite);

    // The matcher dies after writing the batch's alerts but before moving its cursor: nothing stays.
    const crash = vi
      .spyOn(FaceWatchRepository.prototype, 'advanceCursor')
      .mockRejectedValueOnce(new Error('worker killed'));
    await expect(matcher().runOnce()).rejects.toThrow('worker killed');
    crash.mockRestore();
    expect(await t.db.selectFrom('face_alerts').select('id').execute()).toEqual([]);
    expect(await alertMails()).toEqual([]);

    expect(await matcher().drain()).toEqual(expect.objectContaining({ alerts: 1 }));
    const { results, totalResultCount } = await alertsOf(analyst);
    expect(totalResultCount).toBe(1);
    const [alert] = results;
    expect(alert).toMatchObject({
      watchId,
      status: 'NEW',
      sourceUrl: `http://127.0.0.1:${firstSite.port}/`,
      imageUrl: `http://127.0.0.1:${firstSite.port}/photo.jpg`,
      sourceTitle: 'Riverton news',
      imageSize: { width: 640, height: expect.any(Number) },
      copies: [],
    });
    expect(alert!.similarity).toBeGreaterThanOrEqual(MATCH_THRESHOLD);
    expect(alert!.scoreModel).toBe(SHIPPED_SCORE_MODEL);
    // The box is the watched person's, in the 640-px photo (sample1 scaled by a third).
    const scale = 640 / 1920;
    const centre = {
      x: alert!.faceBox.x + alert!.faceBox.width / 2,
      y: alert!.faceBox.y + alert!.faceBox.height / 2,
    };
    expect(centre.x).toBeGreaterThan(PERSON.left * scale);
    expect(centre.x).toBeLessThan((PERSON.left + PERSON.size) * scale);
    expect(centre.y).toBeGreaterThan(PERSON.top * scale);
    expect(centre.y).toBeLessThan((PERSON.top + PERSON.size) * scale);
    const thumbnail = await t.request({ method: 'GET', url: alert!.thumbnailUrl, cookie: analyst.cookie });
    expect(thumbnail.statusCode).toBe(200);
    expect(thumbnail.headers['content-type']).toBe('image/jpeg');

    const mails = await alertMails();
    expect(mails).toHaveLength(1);
    // A link only: no watch name, no picture (read from the message as sent: the job keeps no body).
    const mail = await waitForMail(t.config.dataDir, analyst.email, new RegExp(`^${ALERT_SUBJECT}$`));
    expect(mail.raw).toContain('/alerts');
    expect(mail.raw).not.toContain('Subject of case 17');
    expect(mail.raw).not.toContain('<img');

    // Another organization sees none of it, nor its thumbnail.
    expect((await alertsOf(other)).totalResultCount).toBe(0);
    const foreignThumb = await t.request({ method: 'GET', url: alert!.thumbnailUrl, cookie: other.cookie });
    expect(foreignThumb.statusCode).toBe(404);
  }, 120_000);

  it('a copy of the photo on a second site joins the same alert, with no second e-mail within the hour', async () => {
    const secondSite = await siteWith('Copy elsewhere', photos.groupCopy);
    await crawl(secondSite);
    expect(await matcher().drain()).toEqual(expect.objectContaining({ alerts: 0 }));
    const { results, totalResultCount } = await alertsOf(analyst);
    expect(totalResultCount).toBe(1);
    expect(results[0]!.copies).toEqual([
      expect.objectContaining({
        sourceUrl: `http://127.0.0.1:${secondSite.port}/`,
        imageUrl: `http://127.0.0.1:${secondSite.port}/photo.jpg`,
      }),
    ]);
    expect(await alertMails()).toHaveLength(1);
  }, 120_000);

  it('an unrelated face raises nothing', async () => {
    await crawl(await siteWith('Strangers', photos.stranger));
    expect(await matcher().drain()).toEqual(expect.objectContaining({ alerts: 0 }));
    const { results } = await alertsOf(analyst);
    expect(results).toHaveLength(1);
    expect(results[0]!.copies).toHaveLength(1);
  }, 120_000);

  it('replaying the log from the start adds nothing (exactly once)', async () => {
    await t.db.updateTable('face_watch_cursor').set({ seq: 0 }).execute();
    await matcher().drain();
    const alerts = await t.db.selectFrom('face_alerts').select('id').execute();
    const copies = await t.db.selectFrom('face_alert_copies').select('id').execute();
    expect(alerts).toHaveLength(1);
    expect(copies).toHaveLength(1);
    expect(await alertMails()).toHaveLength(1);
    // Later alerts of the hour wait for the digest job, due an hour after the first e-mail.
    const digests = await t.db
      .selectFrom('jobs')
      .select('run_at')
      .where('queue', '=', QUEUES.faceAlertDigest)
      .execute();
    for (const digest of digests) expect(digest.run_at.getTime()).toBeGreaterThan(Date.now() + 50 * 60_000);
  });

  it('a face a reindex wrote into an image indexed before the watch (logged before its model became active) raises nothing', async () => {
    // As `npm run reindex` leaves it: the new model finds the watched person in a photo indexed long ago,
    // where the old model had no face (no previous face). Its log entry comes after the watch began (the
    // reindex ran later), the model's activation after that; the matcher may read it only after the switch
    // (the embedded database: the server was stopped during the reindex).
    const watched = await t.db
      .selectFrom('face_alerts as a')
      .innerJoin('faces as f', 'f.id', 'a.face_id')
      .innerJoin('face_watches as w', 'w.id', 'a.watch_id')
      .select(['f.descriptor', 'f.model_id', 'w.created_at'])
      .where('a.watch_id', '=', watchId)
      .executeTakeFirstOrThrow();
    const strangerImage = await t.db
      .selectFrom('image_occurrences')
      .select('image_id')
      .where('image_url', 'like', '%/photo.jpg')
      .where('image_id', 'not in', t.db.selectFrom('face_alerts').select('image_id'))
      .where('image_id', 'not in', t.db.selectFrom('face_alert_copies').select('image_id'))
      .executeTakeFirstOrThrow();
    const index = new WebIndexRepository(t.db);
    const [faceId] = await index.insertFaces([
      {
        imageId: strangerImage.image_id,
        box: { x: 1, y: 1, width: 80, height: 80 },
        score: 0.9,
        quality: 0.9,
        descriptor: new Float32Array(new Uint8Array(watched.descriptor).buffer),
        modelId: watched.model_id,
        possibleMinor: false,
      },
    ]);
    const loggedAt = new Date(watched.created_at.getTime() + 1_000);
    // The log's times are never updated by the product (the column type says so): set here as a reindex's.
    await sql`update face_index_log set at = ${loggedAt} where face_id = ${faceId!}`.execute(t.db);
    const { activated_at: activatedBefore } = await t.db
      .selectFrom('face_models')
      .select('activated_at')
      .where('model_id', '=', watched.model_id)
      .executeTakeFirstOrThrow();
    await t.db
      .updateTable('face_models')
      .set({ activated_at: new Date(loggedAt.getTime() + 1_000) })
      .where('model_id', '=', watched.model_id)
      .execute();
    try {
      expect(await matcher().drain()).toEqual(expect.objectContaining({ alerts: 0 }));
      const { results } = await alertsOf(analyst);
      expect(results).toHaveLength(1);
      expect(results[0]!.copies).toHaveLength(1);
    } finally {
      await t.db
        .updateTable('face_models')
        .set({ activated_at: activatedBefore })
        .where('model_id', '=', watched.model_id)
        .execute();
      await index.transaction(async (tx) => {
        await tx.lockFaceIndexLog();
        await tx.deleteOptedOutFaces([faceId!]);
      });
    }
  });

  it('marks alerts seen, and filters by status and watch', async () => {
    const [alert] = (await alertsOf(analyst)).results;
    const seen = await t.request({
      method: 'POST',
      url: '/api/alerts/seen',
      cookie: analyst.cookie,
      payload: { ids: [alert!.id] },
    });
    expect(seen.json()).toEqual({ updated: 1 });
    expect((await alertsOf(analyst, '?status=NEW')).totalResultCount).toBe(0);
    expect((await alertsOf(analyst, `?status=SEEN&watchId=${watchId}`)).totalResultCount).toBe(1);
    // Another organization cannot mark it.
    const foreign = await t.request({
      method: 'POST',
      url: '/api/alerts/seen',
      cookie: other.cookie,
      payload: { ids: [alert!.id] },
    });
    expect(foreign.json()).toEqual({ updated: 0 });
  });

  it('"Save as search" searches the watched face now: a regular search with the face and the alert image', async () => {
    const image = await t.request({
      method: 'GET',
      url: `/api/watches/${watchId}/image`,
      cookie: analyst.cookie,
    });
    expect(image.statusCode).toBe(200);
    expect(image.headers['content-type']).toBe('image/jpeg');
    const response = await t.request({
      method: 'POST',
      url: `/api/watches/${watchId}/search`,
      cookie: analyst.cookie,
    });
    expect(response.statusCode, response.body).toBe(200);
    const { searchHash } = response.json<{ searchHash: string }>();
    const search = await t.request({
      method: 'GET',
      url: `/api/search/${searchHash}`,
      cookie: analyst.cookie,
    });
    const stored = search.json<{ image: string | null; results: { sourceUrl: string }[] }>();
    expect(stored.image).toBe(`/api/search/${searchHash}/image`);
    expect(stored.results.map((result) => result.sourceUrl)).toContain(`http://127.0.0.1:${firstSite.port}/`);
    const foreign = await t.request({
      method: 'POST',
      url: `/api/watches/${watchId}/search`,
      cookie: other.cookie,
    });
    expect(foreign.statusCode).toBe(404);
  });

  it('the admin organization page counts the watches and alerts of that organization only', async () => {
    const detailOf = async (organizationId: number) => {
      const response = await t.request({
        method: 'GET',
        url: `/api/admin/organizations/${organizationId}`,
        cookie: adminCookie,
      });
      expect(response.statusCode, response.body).toBe(200);
      return response.json<AdminOrganizationDetail>();
    };
    // One active watch, its one alert (seen above).
    expect((await detailOf(analyst.organizationId)).faceAlerts).toEqual({
      activeWatches: 1,
      endedWatches: 0,
      alerts: 1,
      newAlerts: 0,
    });
    expect((await detailOf(other.organizationId)).faceAlerts).toEqual({
      activeWatches: 0,
      endedWatches: 0,
      alerts: 0,
      newAlerts: 0,
    });
  });

  it('"Watch this face" from a saved search: its kept face is analysed again, even with the search gone', async () => {
    const searched = await t.request({
      method: 'POST',
      url: `/api/watches/${watchId}/search`,
      cookie: analyst.cookie,
    });
    expect(searched.statusCode, searched.body).toBe(200);
    const { searchHash } = searched.json<{ searchHash: string }>();
    // Saved as the results page saves it: with the face kept with the search.
    const kept = await t.request({
      method: 'GET',
      url: `/api/search/${searchHash}/image`,
      cookie: analyst.cookie,
    });
    expect(kept.statusCode).toBe(200);
    const saved = await t.request({
      method: 'POST',
      url: '/api/search/save',
      cookie: analyst.cookie,
      payload: {
        name: 'Case 17 sightings',
        description: '',
        hash: searchHash,
        image: kept.rawPayload.toString('base64'),
      },
    });
    expect(saved.statusCode, saved.body).toBe(201);
    const savedHash = saved.json<{ hash: string }>().hash;
    // The saved search outlives its search: the watch comes from the saved copy's face.
    await t.db.deleteFrom('searches').where('hashed_id', '=', searchHash).execute();

    // Another organization does not find it.
    const foreign = await t.request({
      method: 'POST',
      url: '/api/watches',
      cookie: other.cookie,
      payload: { searchHash: savedHash, name: 'Not ours' },
    });
    expect(foreign.statusCode).toBe(404);

    const created = await t.request({
      method: 'POST',
      url: '/api/watches',
      cookie: analyst.cookie,
      payload: { searchHash: savedHash, name: 'From the saved search' },
    });
    expect(created.statusCode, created.body).toBe(201);
    const id = created.json<{ id: number }>().id;
    const row = await t.db
      .selectFrom('face_watches')
      .select(['organization_id', 'model_id', 'face_image', 'descriptor_sealed'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(row.organization_id).toBe(analyst.organizationId);
    expect(row.model_id).toBe((await t.container.services.faceEngine.get()).modelId);
    expect(row.descriptor_sealed).not.toBeNull();
    expect(row.face_image).not.toBeNull();
    const audit = await t.db
      .selectFrom('audit_log')
      .select('detail')
      .where('action', '=', 'face-watch.created')
      .where('target', '=', `face-watch:${id}`)
      .executeTakeFirstOrThrow();
    expect(audit.detail).toMatchObject({ from: 'saved-search' });
    // The same person as the first watch: their descriptors agree (above the match threshold).
    const first = await t.db
      .selectFrom('face_watches')
      .select('descriptor_sealed')
      .where('id', '=', watchId)
      .executeTakeFirstOrThrow();
    const open = (sealed: Buffer) =>
      t.container.services.queryFaces.openStored(sealed, watchBinding(analyst.organizationId));
    const [a, b] = [(await open(first.descriptor_sealed!))!, (await open(row.descriptor_sealed!))!];
    expect(a.reduce((sum, value, i) => sum + value * b[i]!, 0)).toBeGreaterThanOrEqual(MATCH_THRESHOLD);

    // Ended again, so the later steps see the one watch they began with.
    const ended = await t.request({ method: 'DELETE', url: `/api/watches/${id}`, cookie: analyst.cookie });
    expect(ended.statusCode).toBe(204);
  }, 60_000);

  it('a watch from a stored or saved search keeps the possible-minor flag its upload sealed', async () => {
    const { member, faceHash, faceCrop } = await lawEnforcementOwnerWithFace(
      'owner@withdrawn-unit.example.org',
      photos.portrait,
    );
    const { searchHash } = await searchFace<{ searchHash: string }>(t, member.cookie, faceHash, faceCrop);
    const saved = await t.request({
      method: 'POST',
      url: '/api/search/save',
      cookie: member.cookie,
      payload: { name: 'Kept', description: '', hash: searchHash, image: faceCrop },
    });
    expect(saved.statusCode, saved.body).toBe(201);
    // The verification is withdrawn; the search stands for one whose face the upload flagged (the one
    // search an approved review allows): its kept crop, analysed again, must not clear the flag.
    await setLawEnforcement(t, adminCookie, member.organizationId, false);
    await t.db
      .updateTable('searches')
      .set({ possible_minor: true })
      .where('hashed_id', '=', searchHash)
      .execute();
    await t.db
      .updateTable('saved_searches')
      .set({ possible_minor: true })
      .where('hashed_id', '=', saved.json<{ hash: string }>().hash)
      .execute();
    const watchOf = (hash: string) =>
      t.request({
        method: 'POST',
        url: '/api/watches',
        cookie: member.cookie,
        payload: { searchHash: hash, name: 'From the search' },
      });
    for (const hash of [searchHash, saved.json<{ hash: string }>().hash]) {
      const refused = await watchOf(hash);
      expect(refused.statusCode, refused.body).toBe(403);
      expect(refused.json().message).toBe(POSSIBLE_MINOR_MESSAGE);
    }
    // Unflagged, the same crop is watched: the refusal came from the kept flag, not from the crop.
    await t.db
      .updateTable('searches')
      .set({ possible_minor: false })
      .where('hashed_id', '=', searchHash)
      .execute();
    expect((await watchOf(searchHash)).statusCode).toBe(201);
  });

  it('after a reindex to another model, the matcher re-derives a watch from its crop under the active model', async () => {
    const binding = watchBinding(analyst.organizationId);
    const readWatch = () =>
      t.db
        .selectFrom('face_watches')
        .select(['model_id', 'descriptor_sealed'])
        .where('id', '=', watchId)
        .executeTakeFirstOrThrow();
    const before = await readWatch();
    const activeModel = before.model_id;
    const original = (await t.container.services.queryFaces.openStored(before.descriptor_sealed!, binding))!;
    // The watch as a watch made under an older 128-d model would be: another model, another descriptor.
    const oldModel = modelOfPipeline('blazeface-dlib');
    expect(oldModel.modelId).not.toBe(activeModel);
    const oldDescriptor = new Float32Array(oldModel.dimensions).fill(1 / Math.sqrt(oldModel.dimensions));
    await t.db
      .updateTable('face_watches')
      .set({
        model_id: oldModel.modelId,
        descriptor_sealed: await t.container.services.queryFaces.sealStored(oldDescriptor, binding),
        changed_at: new Date(),
      })
      .where('id', '=', watchId)
      .execute();

    await matcher().drain();
    const after = await readWatch();
    expect(after.model_id).toBe(activeModel);
    const rederived = (await t.container.services.queryFaces.openStored(after.descriptor_sealed!, binding))!;
    expect(rederived).toHaveLength(original.length);
    // The same crop under the same model: the same face as before.
    expect(original.reduce((sum, value, i) => sum + value * rederived[i]!, 0)).toBeGreaterThan(0.95);
  }, 60_000);

  it('an opt-out of the person takes the alert away', async () => {
    const alertFace = await t.db.selectFrom('face_alerts').select('face_id').executeTakeFirstOrThrow();
    const optOut = await t.request({
      method: 'POST',
      url: '/api/admin/opt-outs',
      cookie: adminCookie,
      payload: { faceId: alertFace.face_id, reason: 'Request of the person' },
    });
    expect(optOut.statusCode, optOut.body).toBe(201);
    await matcher().drain();
    expect((await alertsOf(analyst)).totalResultCount).toBe(0);
    expect(await t.db.selectFrom('face_alert_copies').select('id').execute()).toEqual([]);
  });

  it('retention deletes the alerts of an organization inactive for 30 days (alerts are no activity)', async () => {
    // An alert written now on an existing face, as the matcher would.
    const face = await t.db
      .selectFrom('faces')
      .select(['id', 'image_id'])
      .orderBy('id')
      .executeTakeFirstOrThrow();
    await insertFaceAlert(t, {
      watchId,
      organizationId: analyst.organizationId,
      faceId: face.id,
      imageId: face.image_id,
      firstIndexedAt: new Date(),
    });
    const retention = t.container.services.retention;
    expect((await retention.sweep(new Date())).map((d) => d.organizationId)).not.toContain(
      analyst.organizationId,
    );
    const later = new Date(Date.now() + 31 * 86_400_000);
    const deleted = await retention.sweep(later);
    expect(deleted.find((d) => d.organizationId === analyst.organizationId)?.deleted).toMatchObject({
      faceAlerts: 1,
    });
    expect(await t.db.selectFrom('face_alerts').select('id').execute()).toEqual([]);
  });

  it('ending a watch deletes its descriptor', async () => {
    const ended = await t.request({
      method: 'DELETE',
      url: `/api/watches/${watchId}`,
      cookie: analyst.cookie,
    });
    expect(ended.statusCode).toBe(204);
    const row = await t.db
      .selectFrom('face_watches')
      .select(['descriptor_sealed', 'ended_at'])
      .where('id', '=', watchId)
      .executeTakeFirstOrThrow();
    expect(row.descriptor_sealed).toBeNull();
    expect(row.ended_at).not.toBeNull();
    const again = await t.request({
      method: 'DELETE',
      url: `/api/watches/${watchId}`,
      cookie: analyst.cookie,
    });
    expect(again.statusCode).toBe(404);
  });

  it(`lists every active watch and the ${ENDED_WATCHES_LISTED} last ended, however many ended before`, async () => {
    const owner = await createOwner(t, 'many-ended@alerts.example.org');
    const ended = Array.from({ length: ENDED_WATCHES_LISTED + 5 }, (_, i) => ({
      organization_id: owner.organizationId,
      user_id: null,
      name: `Ended ${i}`,
      descriptor_sealed: null,
      face_image: null,
      model_id: SHIPPED_SCORE_MODEL,
      ends_at: new Date(Date.now() + 86_400_000),
      ended_at: new Date(Date.UTC(2026, 0, 1) + i * 60_000),
    }));
    await t.db.insertInto('face_watches').values(ended).execute();
    await t.db
      .insertInto('face_watches')
      .values({ ...ended[0]!, name: 'Still watching', ended_at: null })
      .execute();
    const list = await t.request({ method: 'GET', url: '/api/watches', cookie: owner.cookie });
    expect(list.statusCode, list.body).toBe(200);
    const names = list.json<{ results: { name: string }[] }>().results.map((watch) => watch.name);
    expect(names).toHaveLength(ENDED_WATCHES_LISTED + 1);
    expect(names[0]).toBe('Still watching');
    expect(names[1]).toBe(`Ended ${ENDED_WATCHES_LISTED + 4}`);
    expect(names.at(-1)).toBe('Ended 5');
  });

  it(`holds at most ${WATCHES_PER_SEAT} active watches per seat, also against requests sent together`, async () => {
    const { member: small, faceHash } = await lawEnforcementOwnerWithFace(
      'owner@one-seat.example.org',
      photos.portrait,
    );
    const watch = (name: string) =>
      t.request({ method: 'POST', url: '/api/watches', cookie: small.cookie, payload: { faceHash, name } });
    for (let i = 1; i < WATCHES_PER_SEAT - 1; i++) expect((await watch(`Case ${i}`)).statusCode).toBe(201);
    // Two places left, four requests at once: two are taken, two refused.
    const together = await Promise.all([1, 2, 3, 4].map((i) => watch(`Together ${i}`)));
    expect(together.map((r) => r.statusCode).sort()).toEqual([201, 201, 409, 409]);
    expect(together.find((r) => r.statusCode === 409)!.json()).toMatchObject({
      message: WATCH_LIMIT_MESSAGE,
    });
    const active = await t.db
      .selectFrom('face_watches')
      .innerJoin('users', 'users.organization_id', 'face_watches.organization_id')
      .select((eb) => eb.fn.countAll<string>().as('count'))
      .where('users.email', '=', small.email)
      .where('face_watches.ended_at', 'is', null)
      .executeTakeFirstOrThrow();
    expect(Number(active.count)).toBe(WATCHES_PER_SEAT);
  });

  it('a watch raises nothing while its organization has no plan in force, and alerts again once it has', async () => {
    const { member: lapsed, id } = await watchSomeoneOfSample2('owner@lapsed-plan.example.org');
    const alertCount = async () =>
      (await t.db.selectFrom('face_alerts').select('id').where('watch_id', '=', id).execute()).length;
    const planEnds = (at: Date) =>
      t.db
        .updateTable('billing_plans')
        .set({ end_date: at })
        .where('organization_id', '=', lapsed.organizationId)
        .execute();

    await planEnds(new Date(Date.now() - 1000));
    await crawl(await siteWith('During the lapse', await copyOfSample2(700)));
    await matcher().drain();
    expect(await alertCount()).toBe(0);

    await planEnds(new Date(Date.now() + 30 * 86_400_000));
    await crawl(await siteWith('After renewal', await copyOfSample2(760)));
    await matcher().drain();
    expect(await alertCount()).toBe(1);
  }, 120_000);

  it("a blocked person is no longer e-mailed the alerts of their watch; a blocked owner's organization gets none", async () => {
    const { owner, member, watchId } = await memberWatchingSomeoneOfSample2('blocked-watcher.example.org');
    /** Alerts of the watch, and the copies of the same photo recorded under them. */
    const sightings = async () => {
      const alerts = await t.db
        .selectFrom('face_alerts')
        .select('id')
        .where('watch_id', '=', watchId)
        .execute();
      const copies = await t.db
        .selectFrom('face_alert_copies')
        .innerJoin('face_alerts', 'face_alerts.id', 'face_alert_copies.alert_id')
        .select('face_alert_copies.alert_id')
        .where('face_alerts.watch_id', '=', watchId)
        .execute();
      return { alerts: alerts.length, copies: copies.length };
    };
    const mailsTo = async () =>
      (await mailJobsTo(t, member.email)).filter((mail) => mail.subject === ALERT_SUBJECT).length;
    const block = async (userId: number) =>
      expect(
        (await t.request({ method: 'POST', url: `/api/admin/users/${userId}/block`, cookie: adminCookie }))
          .statusCode,
      ).toBe(200);

    await block(member.id);
    await crawl(await siteWith('While blocked', await copyOfSample2(710)));
    await matcher().drain();
    // The alert is raised for the organization; only its e-mail to the blocked member is withheld.
    const whileMemberBlocked = await sightings();
    expect(whileMemberBlocked.alerts).toBe(1);
    expect(await mailsTo()).toBe(0);

    // Blocking the owner suspends the organization: its watches raise nothing while it is blocked.
    await block(owner.id);
    await crawl(await siteWith('Owner blocked', await copyOfSample2(715)));
    await matcher().drain();
    expect(await sightings()).toEqual(whileMemberBlocked);
    // Unblocked, the next sighting is recorded again (a copy of the photo already alerted).
    expect(
      (await t.request({ method: 'POST', url: `/api/admin/users/${owner.id}/unblock`, cookie: adminCookie }))
        .statusCode,
    ).toBe(200);
    await crawl(await siteWith('Owner unblocked', await copyOfSample2(720)));
    await matcher().drain();
    const after = await sightings();
    expect(after.alerts + after.copies).toBeGreaterThan(
      whileMemberBlocked.alerts + whileMemberBlocked.copies,
    );
  }, 120_000);

  it('a person who has lost their seat is no longer e-mailed the alerts of their watch', async () => {
    const { member, watchId } = await memberWatchingSomeoneOfSample2('seatless-watcher.example.org');
    // The owner takes the member's seat away: the member can no longer open the alerts.
    await t.db.updateTable('users').set({ has_access: false }).where('id', '=', member.id).execute();
    await crawl(await siteWith('Seat taken away', await copyOfSample2(725)));
    await matcher().drain();
    const alerts = await t.db
      .selectFrom('face_alerts')
      .select('id')
      .where('watch_id', '=', watchId)
      .execute();
    expect(alerts).toHaveLength(1);
    expect((await mailJobsTo(t, member.email)).filter((mail) => mail.subject === ALERT_SUBJECT)).toHaveLength(
      0,
    );
  }, 120_000);

  it('an organization suspended after an alert (its owner blocked) is sent no digest of it', async () => {
    const owner = await createOwner(t, 'owner@suspended-digest.example.org', { seatLimit: 2 });
    await verifyLawEnforcement(t, owner.email);
    const member = await createMember(t, owner.organizationId, 'analyst@suspended-digest.example.org', true);
    const face = (await uploadFaces(t, member.cookie, photos.stranger))[0]!;
    const created = await t.request({
      method: 'POST',
      url: '/api/watches',
      cookie: member.cookie,
      payload: { faceHash: face.hash, name: 'Watched before the suspension' },
    });
    expect(created.statusCode, created.body).toBe(201);
    const watchId = created.json<{ id: number }>().id;
    await crawl(await siteWith('Before the suspension', await copyOfSample2(740)));
    await matcher().drain();
    const mailsTo = async () =>
      (await mailJobsTo(t, member.email)).filter((mail) => mail.subject === ALERT_SUBJECT).length;
    expect(await mailsTo()).toBe(1);
    // The hour has passed with the alert not yet in a digest: the digest job runs.
    const adminAction = async (action: 'block' | 'unblock') =>
      expect(
        (
          await t.request({
            method: 'POST',
            url: `/api/admin/users/${owner.id}/${action}`,
            cookie: adminCookie,
          })
        ).statusCode,
      ).toBe(200);
    await adminAction('block');
    await digestDue(watchId);
    expect(await mailsTo()).toBe(1);
    // Unblocked, the same digest goes out.
    await adminAction('unblock');
    await digestDue(watchId);
    expect(await mailsTo()).toBe(2);
  }, 120_000);

  it('an organization whose verification is withdrawn sees no alert of a possible minor, and its watch of one raises none', async () => {
    const { member, id } = await watchSomeoneOfSample2('owner@withdrawn-alerts.example.org');
    const verify = (verified: boolean) => setLawEnforcement(t, adminCookie, member.organizationId, verified);
    const flagWatch = (possibleMinor: boolean) =>
      t.db
        .updateTable('face_watches')
        .set({ possible_minor: possibleMinor, changed_at: new Date() })
        .where('id', '=', id)
        .execute();
    /** Crawls a new copy of sample 2 whose faces the index does not flag, then runs the matcher. */
    const newSighting = async (title: string, width: number) => {
      const before = await t.db
        .selectFrom('faces')
        .select((eb) => eb.fn.max('id').as('id'))
        .executeTakeFirstOrThrow();
      await crawl(await siteWith(title, await copyOfSample2(width)));
      await t.db
        .updateTable('faces')
        .set({ possible_minor: false })
        .where('id', '>', before.id ?? 0)
        .execute();
      await matcher().drain();
    };
    const watchCounts = async () => {
      const list = await t.request({ method: 'GET', url: '/api/watches', cookie: member.cookie });
      const watch = list
        .json<{ results: { id: number; alertCount: number; newAlertCount: number }[] }>()
        .results.find((w) => w.id === id)!;
      return [watch.alertCount, watch.newAlertCount];
    };

    // The watched face was flagged and the verification withdrawn: the watch runs on, raising nothing.
    await flagWatch(true);
    await verify(false);
    await newSighting('Watched minor', 690);
    expect((await alertsOf(member)).totalResultCount).toBe(0);
    await verify(true);
    await flagWatch(false);
    await newSighting('Watched again', 730);
    const [alert] = (await alertsOf(member)).results;
    expect(alert).toMatchObject({ watchId: id, sourceTitle: 'Watched again' });
    expect(await watchCounts()).toEqual([1, 1]);

    // The alert's face is flagged after it was raised; the verification is withdrawn: the alert, its
    // count and its thumbnail are withheld until the organization is verified again.
    await t.db
      .updateTable('faces')
      .set({ possible_minor: true })
      .where('id', '=', (eb) => eb.selectFrom('face_alerts').select('face_id').where('id', '=', alert!.id))
      .execute();
    await verify(false);
    expect(await alertsOf(member)).toEqual({ results: [], totalResultCount: 0 });
    expect(await watchCounts()).toEqual([0, 0]);
    const thumbnail = () => t.request({ method: 'GET', url: alert!.thumbnailUrl, cookie: member.cookie });
    expect((await thumbnail()).statusCode).toBe(404);
    // Nor does the hourly digest write about it: an e-mail would tell of an alert it may not see.
    const alertMails = async () =>
      (await mailJobsTo(t, member.email)).filter((mail) => mail.subject === ALERT_SUBJECT).length;
    const mailsBefore = await alertMails();
    await digestDue(id);
    expect(await alertMails()).toBe(mailsBefore);
    await verify(true);
    expect((await alertsOf(member)).results).toEqual([alert]);
    expect(await watchCounts()).toEqual([1, 1]);
    expect((await thumbnail()).statusCode).toBe(200);
    await digestDue(id);
    expect(await alertMails()).toBe(mailsBefore + 1);
  }, 120_000);
});
