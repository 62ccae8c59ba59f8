// npm run bench:fair — one organization floods the face workers, another uploads an ordinary photo.
// The real application (in process, PGlite, the default number of face workers for this machine) gets
// 30 hostile uploads in flight at all times from organization A: the images the penetration test used
// (a 1 KB RLE8 BMP, a black PNG and a JPEG, all declaring 6300×6300: refused from their headers) and the
// most expensive ones still within the upload pixel budget (4096×4096 as RLE8 BMP, PNG, JPEG and TIFF).
// Meanwhile organization B uploads a real photo one after another. Prints B's p50/p95 idle and under the
// flood, and whether B's p95 under the flood stays within 2× its idle p95.
//   npm run bench:fair -- --samples 8 --flood 30
import { parseArgs } from 'node:util';
import sharp from 'sharp';
import { demoPhoto, honestRle8Bmp, rle8Bmp } from '../server/test/face/image-fixtures.ts';
import { createUser, login } from '../server/test/support/fixtures.ts';
import { createPlan } from '../server/test/support/team-fixtures.ts';
import { createTestApp, type TestApp } from '../server/test/support/test-app.ts';

const { values } = parseArgs({
  options: {
    samples: { type: 'string', default: '8' },
    flood: { type: 'string', default: '30' },
  },
});
const SAMPLES = Number(values.samples);
const FLOOD = Number(values.flood);
/** The flood is bounded in count and time whatever happens. */
const MAX_FLOOD_UPLOADS = 2_000;
const MAX_FLOOD_MS = 15 * 60_000;

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
const summary = (ms: number[]) => {
  const sorted = [...ms].sort((a, b) => a - b);
  return { p50: Math.round(percentile(sorted, 50)), p95: Math.round(percentile(sorted, 95)) };
};

async function hostileImages(): Promise<Buffer[]> {
  const flat = (side: number) =>
    sharp({ create: { width: side, height: side, channels: 3, background: '#000' } });
  return [
    rle8Bmp(6300, 6300),
    await flat(6300).png({ compressionLevel: 9 }).toBuffer(),
    await flat(6300).jpeg({ quality: 50 }).toBuffer(),
    honestRle8Bmp(4096, 4096),
    await flat(4096).png({ compressionLevel: 9 }).toBuffer(),
    await flat(4096).jpeg({ quality: 50 }).toBuffer(),
    await flat(4096).tiff({ compression: 'deflate' }).toBuffer(),
  ];
}

async function main(): Promise<void> {
  const t: TestApp = await createTestApp();
  try {
    const users = await Promise.all(
      ['a', 'b'].map(async (name) => {
        const email = `analyst@org-${name}.example.org`;
        const user = await createUser(t, { email });
        await createPlan(t, user.organizationId, { seatLimit: 1 });
        return login(t, email);
      }),
    );
    const [cookieA, cookieB] = users as [string, string];
    const upload = async (cookie: string, image: Buffer) => {
      const started = performance.now();
      const response = await t.request({
        method: 'POST',
        url: '/api/upload-image',
        cookie,
        payload: { img: image.toString('base64') },
      });
      return { status: response.statusCode, ms: performance.now() - started };
    };
    const photo = demoPhoto(1);
    const uploadB = async () => {
      const { status, ms } = await upload(cookieB, photo);
      if (status !== 200) throw new Error(`B's upload answered ${status}`);
      return ms;
    };

    // The face workers load their models on first use.
    await uploadB();
    const idle: number[] = [];
    for (let i = 0; i < SAMPLES; i++) idle.push(await uploadB());

    const hostile = await hostileImages();
    let sent = 0;
    let refused = 0;
    let analysed = 0;
    let flooding = true;
    const floodStarted = performance.now();
    const floodLane = async () => {
      while (flooding && sent < MAX_FLOOD_UPLOADS && performance.now() - floodStarted < MAX_FLOOD_MS) {
        const image = hostile[sent++ % hostile.length]!;
        const { status } = await upload(cookieA, image);
        if (status === 200) analysed++;
        else refused++;
      }
    };
    const lanes = Array.from({ length: FLOOD }, floodLane);
    // Let the flood fill the queue before B's first upload.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const underFlood: number[] = [];
    for (let i = 0; i < SAMPLES; i++) underFlood.push(await uploadB());
    flooding = false;
    await Promise.all(lanes);

    const idleStats = summary(idle);
    const floodStats = summary(underFlood);
    const ratio = floodStats.p95 / idleStats.p95;
    console.log(`B idle:            p50 ${idleStats.p50} ms, p95 ${idleStats.p95} ms (${SAMPLES} uploads)`);
    console.log(`B under A's flood: p50 ${floodStats.p50} ms, p95 ${floodStats.p95} ms (${SAMPLES} uploads)`);
    console.log(
      `A's flood: ${FLOOD} in flight, ${sent} sent, ${analysed} analysed, ${refused} refused from the header`,
    );
    console.log(
      `B p95 under flood / idle p95: ${ratio.toFixed(2)}× (target ≤ 2×): ${ratio <= 2 ? 'met' : 'NOT met'}`,
    );
  } finally {
    await t.close();
  }
}

await main();
