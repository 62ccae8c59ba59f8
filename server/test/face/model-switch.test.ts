import { createCipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { pairFaces } from '../../src/face/face-box-overlap.ts';
import { QueryFaceTokens } from '../../src/services/query-face-token.ts';

// The descriptor's model travels sealed with it, so a face is only ever searched against vectors of
// its own model; and faces of two analyses of one image are paired by their boxes.

const settings = { getOrCreate: async (_key: string, candidate: string) => candidate };
const KEY = 'test-key';

describe('query face tokens carry their model', () => {
  it('seals and opens the model id with the descriptor', async () => {
    const tokens = new QueryFaceTokens(settings, KEY);
    const descriptor = new Float32Array(512).map((_, i) => i / 512);
    const token = await tokens.seal({
      descriptor,
      modelId: 'some-model@2',
      organizationId: 7,
      userId: 9,
      possibleMinor: false,
    });
    const face = await tokens.open(token, 7);
    expect(face?.modelId).toBe('some-model@2');
    expect(face?.descriptor).toEqual(descriptor);
    expect(token.length).toBeLessThan(3072); // a 512-d face still fits the routes' limit
  });

  it('reads a token sealed before model ids as the model shipped then', async () => {
    const descriptor = new Float32Array(128).fill(0.088);
    const plain = Buffer.alloc(16 + descriptor.byteLength);
    plain.writeDoubleLE(Date.now() + 60_000, 0);
    plain.writeUInt32LE(7, 8);
    plain.writeUInt32LE(9, 12);
    Buffer.from(descriptor.buffer).copy(plain, 16);
    const key = Buffer.from(hkdfSync('sha256', KEY, 'osint-query-face', 'query face token v1', 32));
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    cipher.setAAD(Buffer.of(1));
    const sealed = Buffer.concat([cipher.update(plain), cipher.final()]);
    const token = Buffer.concat([Buffer.of(1), iv, sealed, cipher.getAuthTag()]).toString('base64url');
    const face = await new QueryFaceTokens(settings, KEY).open(token, 7);
    expect(face).toMatchObject({ modelId: 'blazeface+dlib128-5pt@1', organizationId: 7, userId: 9 });
    expect(face?.descriptor).toEqual(descriptor);
  });
});

describe('pairing the faces of two analyses of one image', () => {
  const box = (x: number, y: number, size: number) => ({ box: { x, y, width: size, height: size } });

  it('pairs each face with its best overlapping partner, once, and leaves strangers alone', () => {
    const a = [box(0, 0, 100), box(300, 0, 100), box(600, 0, 50)];
    // Framed a little differently (another detector), in another order, plus a face only b found.
    const b = [box(310, 5, 110), box(900, 0, 80), box(-10, -10, 120)];
    expect(pairFaces(a, b)).toEqual([2, 0, undefined]);
    // Two boxes competing for one partner: the better overlap wins it.
    expect(pairFaces([box(0, 0, 100), box(5, 5, 100)], [box(6, 6, 100)])).toEqual([undefined, 0]);
  });
});
