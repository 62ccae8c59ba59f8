import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AnalyzedFace, createFaceEngine, type FaceEngine } from '../../src/face/face-engine.ts';
import { decodeImage } from '../../src/face/image-decode.ts';
import { BlazeFaceDetector, detectionRegions } from '../../src/face/pipeline/blazeface-detector.ts';
import { similarity } from '../../src/face/similarity.ts';
import { demoPhoto } from './image-fixtures.ts';

// The BlazeFace front end of the shipped pipeline (blazeface-mfn512): faces turned any way are found and
// described as when upright, and things that are not faces are not reported, even where BlazeFace alone
// takes them for faces. Images come from face-api's demo photos and drawings made here.

let engine: FaceEngine;

beforeAll(async () => {
  engine = await createFaceEngine({ pipeline: 'blazeface-mfn512', threads: 1 });
});

afterAll(async () => {
  await engine?.close();
});

const centre = (f: AnalyzedFace): [number, number] => [f.box.x + f.box.width / 2, f.box.y + f.box.height / 2];

describe('faces lying sideways, upside down or tilted', () => {
  // A portrait cut from a demo photo with a margin around the face (the woman on the right of sample 1).
  let portrait: Buffer;
  let upright: AnalyzedFace;

  beforeAll(async () => {
    portrait = await sharp(demoPhoto(1))
      .extract({ left: 1374, top: 147, width: 390, height: 390 })
      .resize(320)
      .jpeg({ quality: 90 })
      .toBuffer();
    const { faces } = await engine.analyze(portrait);
    expect(faces).toHaveLength(1);
    upright = faces[0]!;
  });

  // sharp turns clockwise and, for angles that are not quarter turns, enlarges the canvas to hold the
  // whole picture, so the face centre moves with the picture's centre.
  it.each([90, 180, 270, 30, -45])('finds the face turned by %i° with the same descriptor', async (angle) => {
    const turned = await sharp(portrait).rotate(angle, { background: '#808080' }).jpeg().toBuffer();
    const analysis = await engine.analyze(turned);
    expect(analysis.faces).toHaveLength(1);
    const face = analysis.faces[0]!;
    // Measured: 0.98–1.00 for these copies. Other photos of the same person score lower (this woman in
    // sample 3: 0.68); different people in one demo photo reach 0.34 (31 pairs).
    expect(similarity(face.descriptor, upright.descriptor)).toBeGreaterThanOrEqual(0.6);
    // The box lies on the face, in the turned image's own pixels.
    const a = (angle * Math.PI) / 180;
    const [dx, dy] = [centre(upright)[0] - 160, centre(upright)[1] - 160];
    const expected = [
      analysis.width / 2 + Math.cos(a) * dx - Math.sin(a) * dy,
      analysis.height / 2 + Math.sin(a) * dx + Math.cos(a) * dy,
    ];
    const [x, y] = centre(face);
    expect(Math.hypot(x - expected[0]!, y - expected[1]!)).toBeLessThan(0.25 * upright.box.width);
    expect(face.box.width).toBeGreaterThan(0.7 * upright.box.width);
    expect(face.box.width).toBeLessThan(1.5 * upright.box.width);
  });
});

describe('non-faces', () => {
  /** Drawings that look a little like faces to a detector: a badge, a tail-light, a lamp, text, dots. */
  const drawings: Record<string, string> = {
    'club logo': `<svg xmlns="http://www.w3.org/2000/svg" width="400" height="400">
      <rect width="400" height="400" fill="#fff"/><circle cx="200" cy="200" r="170" fill="#0b3d91"/>
      <circle cx="200" cy="200" r="140" fill="#fff"/><circle cx="200" cy="200" r="120" fill="#c8102e"/>
      <circle cx="155" cy="170" r="22" fill="#fff"/><circle cx="245" cy="170" r="22" fill="#fff"/>
      <path d="M140 250 Q200 290 260 250" stroke="#fff" stroke-width="14" fill="none"/>
      <text x="200" y="60" font-size="28" font-family="sans-serif" text-anchor="middle" fill="#fff">FC RIVERTON</text>
    </svg>`,
    'car tail-lights': `<svg xmlns="http://www.w3.org/2000/svg" width="480" height="320">
      <defs><radialGradient id="g"><stop offset="0" stop-color="#fff4e0"/><stop offset="0.35" stop-color="#ff3b2f"/>
      <stop offset="1" stop-color="#5a0000"/></radialGradient></defs>
      <rect width="480" height="320" fill="#2b2d31"/><rect x="40" y="90" width="400" height="160" rx="30" fill="#44474d"/>
      <ellipse cx="130" cy="150" rx="55" ry="32" fill="url(#g)"/><ellipse cx="350" cy="150" rx="55" ry="32" fill="url(#g)"/>
      <rect x="190" y="200" width="100" height="30" fill="#ddd"/>
    </svg>`,
    'red light': `<svg xmlns="http://www.w3.org/2000/svg" width="300" height="300">
      <defs><radialGradient id="g"><stop offset="0" stop-color="#ffe9d0"/><stop offset="0.4" stop-color="#ff2a1a"/>
      <stop offset="1" stop-color="#300"/></radialGradient></defs>
      <rect width="300" height="300" fill="#111"/><circle cx="150" cy="150" r="70" fill="url(#g)"/>
    </svg>`,
    text: `<svg xmlns="http://www.w3.org/2000/svg" width="480" height="320"><rect width="480" height="320" fill="#fff"/>
      <text x="30" y="120" font-size="64" font-family="serif" font-weight="bold">Breaking</text>
      <text x="30" y="200" font-size="64" font-family="serif" font-weight="bold">News 0:00</text>
      <text x="30" y="260" font-size="24" font-family="sans-serif">oo OO @@ 88 — the Riverton Courier</text>
    </svg>`,
    dots: `<svg xmlns="http://www.w3.org/2000/svg" width="400" height="400"><rect width="400" height="400" fill="#f5e6c8"/>
      ${Array.from({ length: 25 }, (_, i) => `<circle cx="${40 + (i % 5) * 80}" cy="${40 + Math.floor(i / 5) * 80}" r="${18 + (i % 3) * 6}" fill="#6b3e26"/>`).join('')}
    </svg>`,
  };
  const png = (svg: string) => sharp(Buffer.from(svg)).png().toBuffer();

  it.each(Object.keys(drawings))('reports no face in a drawing: %s', async (name) => {
    const { faces } = await engine.analyze(await png(drawings[name]!));
    expect(faces).toEqual([]);
  });

  it('rejects what BlazeFace alone takes for a face', async () => {
    // The red light is a face to BlazeFace (score 0.8, above its 0.5 minimum); only the landmark checks
    // reject it. Checked here so that the drawings above keep testing the filter, not just the detector.
    const detector = await BlazeFaceDetector.load();
    const image = await decodeImage(await png(drawings['red light']!), { maxSide: 2048 });
    const raw = await detector.detect(image, detectionRegions(image.width, image.height, 40), 0.5);
    expect(raw.length).toBeGreaterThan(0);
    expect((await engine.analyze(await png(drawings['red light']!))).faces).toEqual([]);
  });

  it('keeps every face of the demo photos: 3, 3, 3, 4, 5 and 4 in sample1…sample6', async () => {
    const counts: number[] = [];
    for (const n of [1, 2, 3, 4, 5, 6] as const)
      counts.push((await engine.analyze(demoPhoto(n))).faces.length);
    expect(counts).toEqual([3, 3, 3, 4, 5, 4]);
  });
});
