import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { LAW_ENFORCEMENT_MESSAGES } from '@osint/contract/admin';
import { POSSIBLE_MINOR_MESSAGE } from '@osint/contract/search';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderDemoPhotos } from '../../src/demo/demo-site.ts';
import { createAdmin, createUser, login, waitForMails } from '../support/fixtures.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { TEST_DATABASE_KIND } from '../support/test-database.ts';

// The minors gate through the API, with real photos of a child and a teenager from the age-dev set
// (../shared/faces/age-dev, or FACES_AGE_DIR): refused for a normal organization, searched after an admin
// verifies it as law enforcement. An adult of the demo photos is searched by the normal organization.

const ageDir =
  process.env.FACES_AGE_DIR ?? path.resolve(import.meta.dirname, '../../../../shared/faces/age-dev');
const haveAgeDev = existsSync(path.join(ageDir, 'labels.csv'));
if (!haveAgeDev)
  console.warn(`minors gate: skipped, the age-dev photos are not at ${ageDir} (FACES_AGE_DIR)`);

/** The first photo of the set (labels order) of a person aged `age`. */
function photoOfAge(age: number): string {
  const lines = readFileSync(path.join(ageDir, 'labels.csv'), 'utf8').trim().split(/\r?\n/).slice(1);
  const line = lines.find((l) => Number(l.split(',')[1]) === age);
  if (!line) throw new Error(`no photo of age ${age} in age-dev`);
  return path.join(ageDir, line.split(',')[0]!);
}

/** The tight 200×200 crop on a grey border, as a photo of a person would frame the face. */
async function padded(file: string): Promise<Buffer> {
  return sharp(file)
    .extend({ top: 100, bottom: 100, left: 100, right: 100, background: { r: 128, g: 128, b: 128 } })
    .jpeg({ quality: 92 })
    .toBuffer();
}

interface UploadAnswer {
  faces: { hash: string; possibleMinor: boolean }[];
  minorsSearchable: boolean;
}

let t: TestApp;
let analyst: string;
let admin: string;
let organizationId: number;
const OWNER = 'owner@police-unit.example.org';

async function upload(photo: Buffer): Promise<UploadAnswer> {
  const response = await t.request({
    method: 'POST',
    url: '/api/upload-image',
    cookie: analyst,
    payload: { img: photo.toString('base64') },
  });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<UploadAnswer>();
}

const search = (hash: string) =>
  t.request({
    method: 'POST',
    url: '/api/search',
    cookie: analyst,
    payload: { faces: [hash], type: 'OSINT' },
  });

const auditActions = async () =>
  (
    await t.db
      .selectFrom('audit_log')
      .select(['action', 'actor_user_id', 'organization_id', 'target', 'detail'])
      .where('action', 'like', 'search.%')
      .orderBy('id')
      .execute()
  ).map((row) => ({ ...row, detail: typeof row.detail === 'string' ? JSON.parse(row.detail) : row.detail }));

describe.skipIf(!haveAgeDev)(`minors gate (${TEST_DATABASE_KIND})`, () => {
  beforeAll(async () => {
    t = await createTestApp();
    const owner = await createUser(t, { email: OWNER });
    organizationId = owner.organizationId;
    await t.db
      .insertInto('billing_plans')
      .values({
        organization_id: organizationId,
        plan_type: 'SUBSCRIPTION',
        start_date: new Date(Date.now() - 86_400_000),
        end_date: new Date(Date.now() + 30 * 86_400_000),
        seat_limit: 3,
      })
      .execute();
    analyst = await login(t, OWNER);
    admin = await createAdmin(t);
  });

  afterAll(async () => {
    await t?.close();
  });

  it('refuses a child and a teenager for an organization that is not verified law enforcement', async () => {
    const adult = (await renderDemoPhotos()).get('northwind-team.jpg')!;
    const adultFace = (await upload(adult)).faces[0]!;
    expect(adultFace.possibleMinor).toBe(false);
    expect((await search(adultFace.hash)).statusCode).toBe(200);

    for (const age of [7, 15]) {
      const answer = await upload(await padded(photoOfAge(age)));
      expect(answer.minorsSearchable).toBe(false);
      expect(answer.faces[0]?.possibleMinor, `age ${age}`).toBe(true);
      const refused = await search(answer.faces[0]!.hash);
      expect(refused.statusCode).toBe(403);
      expect(refused.json<{ message: string }>().message).toBe(POSSIBLE_MINOR_MESSAGE);
    }
    const refusals = (await auditActions()).filter((a) => a.action === 'search.refused_minor');
    // Who and when (the entry's time), never the photo.
    expect(refusals).toHaveLength(2);
    for (const entry of refusals) {
      expect(entry).toMatchObject({ organization_id: organizationId, target: null, detail: {} });
      expect(entry.actor_user_id).not.toBeNull();
    }
    expect(await t.db.selectFrom('searches').select('id').execute()).toHaveLength(1);
  });

  it('searches them once an admin has verified the organization as law enforcement', async () => {
    const verify = (payload: object) =>
      t.request({
        method: 'POST',
        url: `/api/admin/organizations/${organizationId}/law-enforcement`,
        cookie: admin,
        payload,
      });
    // Without a note of the evidence: refused, nothing changes.
    const noNote = await verify({ verified: true, note: '   ' });
    expect(noNote.statusCode).toBe(400);
    expect(noNote.json<{ message: string }>().message).toBe(LAW_ENFORCEMENT_MESSAGES.noteRequired);
    expect((await upload(await padded(photoOfAge(15)))).minorsSearchable).toBe(false);
    // Only admins may verify.
    const byAnalyst = await t.request({
      method: 'POST',
      url: `/api/admin/organizations/${organizationId}/law-enforcement`,
      cookie: analyst,
      payload: { verified: true, note: 'self' },
    });
    expect(byAnalyst.statusCode).toBe(403);

    const verified = await verify({ verified: true, note: 'Warrant card and agency letter checked' });
    expect(verified.statusCode, verified.body).toBe(200);
    expect(verified.json()).toMatchObject({ verified: true, note: 'Warrant card and agency letter checked' });
    const detail = await t.request({
      method: 'GET',
      url: `/api/admin/organizations/${organizationId}`,
      cookie: admin,
    });
    expect(detail.json<{ lawEnforcement: { verified: boolean } }>().lawEnforcement.verified).toBe(true);
    await waitForMails(t, OWNER, /^Law-enforcement verification$/, 1);

    for (const age of [7, 15]) {
      const answer = await upload(await padded(photoOfAge(age)));
      expect(answer.minorsSearchable).toBe(true);
      expect(answer.faces[0]?.possibleMinor).toBe(true);
      const allowed = await search(answer.faces[0]!.hash);
      expect(allowed.statusCode, allowed.body).toBe(200);
    }
    const minorSearches = (await auditActions()).filter((a) => a.action === 'search.minor');
    expect(minorSearches).toHaveLength(2);
    expect(minorSearches[0]!.target).toMatch(/^search:/);
    const verification = await t.db
      .selectFrom('audit_log')
      .select(['action', 'detail'])
      .where('action', 'like', 'admin.organization.law_enforcement%')
      .execute();
    expect(verification.map((v) => v.action)).toEqual(['admin.organization.law_enforcement_verified']);

    // Withdrawn: refused again.
    expect((await verify({ verified: false })).json()).toMatchObject({ verified: false, note: null });
    const again = await upload(await padded(photoOfAge(7)));
    expect((await search(again.faces[0]!.hash)).statusCode).toBe(403);
  });
});
