import type { SearchType } from '../db/schema.ts';
import { isPossibleMinor } from '../face/age/possible-minor.ts';
import type { FaceEngine } from '../face/face-engine.ts';
import { faceSizePx, l2Normalise, meanDescriptor } from '../face/similarity.ts';
import { cropDigest } from '../lib/face-image.ts';
import type { KeptFacePictures } from '../repositories/kept-face-pictures.ts';
import type { SearchRepository } from '../repositories/search.repository.ts';
import type { QueryFaceTokens } from './query-face-token.ts';
import type { SearchAnswer, SearchService } from './search.service.ts';
import type { AuthUser } from './session.service.ts';

/** A face read again from a picture the product kept (a search's, a watch's), under the engine's model. */
export interface KeptFace {
  descriptor: Float32Array;
  modelId: string;
  possibleMinor: boolean;
}

/**
 * The face of a kept crop under the engine's model (its largest face), or undefined when the engine finds
 * none. Searches and watches keep their faces' crops, not descriptors (an upload's descriptors live in
 * memory only), so whatever searches or watches a kept face again reads it from its crop.
 */
export async function descriptorOfCrop(
  engine: FaceEngine,
  crop: Buffer,
  organizationId: number,
): Promise<KeptFace | undefined> {
  const analysis = await engine.analyze(crop, { organizationId, minFaceSize: 20 });
  const face = [...analysis.faces].sort((a, b) => faceSizePx(b.box) - faceSizePx(a.box))[0];
  if (!face) return undefined;
  return {
    descriptor: l2Normalise(Float32Array.from(face.descriptor)),
    modelId: engine.modelId,
    possibleMinor: isPossibleMinor(face.age),
  };
}

/**
 * Every kept face under the engine's model: the face shown, read again from its picture (undefined when
 * none was kept or the engine finds no face in it), the other uploaded faces, read again from theirs (one
 * in which no face is found any more is left out), and the indexed faces added (with `moreFaceIds`, faces
 * chosen now) that this model describes. Kept faces flagged at upload (`flaggedAtUpload`) keep the shown
 * face flagged: a picture's own estimate can only add the flag.
 */
export async function readKeptFaces(
  engine: FaceEngine,
  indexedFaces: Pick<SearchRepository, 'findIndexedFaces'>,
  kept: KeptFacePictures,
  owner: { organizationId: number; flaggedAtUpload: boolean },
  moreFaceIds: readonly number[] = [],
) {
  const read = async (picture: Buffer) => {
    const face = await descriptorOfCrop(engine, picture, owner.organizationId);
    return face && { ...face, picture };
  };
  const shown = kept.faceImage ? await read(kept.faceImage) : undefined;
  const others = (await Promise.all(kept.otherFaceImages.map(read))).filter((face) => face !== undefined);
  const faceIds = [...new Set([...kept.addedFaceIds.map(Number), ...moreFaceIds])];
  const indexed = (await indexedFaces.findIndexedFaces(faceIds)).filter(
    (face) => face.modelId === engine.modelId,
  );
  return {
    keptPicture: kept.faceImage !== null,
    shown: shown && { ...shown, possibleMinor: shown.possibleMinor || owner.flaggedAtUpload },
    others,
    indexed,
  };
}

export type KeptFaces = Awaited<ReturnType<typeof readKeptFaces>>;
type ReadFace = NonNullable<KeptFaces['shown']>;

/**
 * The indexed faces an organization may search with: unless `minorsAllowed`, a face flagged as a possible
 * minor (now, perhaps by a reindex's age estimate) is left out, as that organization no longer sees it.
 */
export function visibleIndexedFaces(faces: KeptFaces, minorsAllowed: boolean) {
  return faces.indexed.filter((face) => minorsAllowed || face.possibleMinor !== true);
}

/**
 * The one descriptor a watch of these faces watches: the mean of the shown face, the other uploaded ones
 * and the indexed faces the organization may see, as a search of them all searches.
 */
export function watchedDescriptorOf(shown: ReadFace, faces: KeptFaces, minorsAllowed: boolean) {
  const indexed = visibleIndexedFaces(faces, minorsAllowed);
  return {
    descriptor: meanDescriptor([
      shown.descriptor,
      ...faces.others.map((face) => face.descriptor),
      ...indexed.map((face) => l2Normalise(face.vector)),
    ]),
    possibleMinor:
      shown.possibleMinor ||
      faces.others.some((face) => face.possibleMinor) ||
      indexed.some((face) => face.possibleMinor === true),
    kept: {
      faceImage: shown.picture,
      otherFaceImages: faces.others.map((face) => face.picture),
      addedFaceIds: indexed.map((face) => face.id),
    } satisfies KeptFacePictures,
  };
}

/**
 * A new search of the user's organization with every one of these faces, each sealed as a search token
 * of the user, the shown face first; the new search keeps the same pictures and indexed faces.
 */
export async function searchKeptFaces(
  deps: { tokens: QueryFaceTokens; search: Pick<SearchService, 'search'> },
  user: AuthUser,
  modelId: string,
  faces: { shown: ReadFace; others: ReadFace[]; indexed: KeptFaces['indexed'] },
  type: SearchType,
): Promise<SearchAnswer> {
  const seal = (face: { descriptor: Float32Array; possibleMinor: boolean; picture?: Buffer }) =>
    deps.tokens.seal({
      descriptor: face.descriptor,
      modelId,
      organizationId: user.organizationId,
      userId: user.id,
      possibleMinor: face.possibleMinor,
      cropSha256: face.picture === undefined ? undefined : cropDigest(base64(face.picture)),
    });
  const tokens = await Promise.all([
    seal(faces.shown),
    ...faces.others.map(seal),
    // As the index gate reads the flag: a face indexed before the age estimate (null) is shown to every
    // organization until a reindex estimates it, so it is searched as it is shown.
    ...faces.indexed.map((face) =>
      seal({ descriptor: l2Normalise(face.vector), possibleMinor: face.possibleMinor === true }),
    ),
  ]);
  return deps.search.search(user, tokens, type, {
    faceImage: base64(faces.shown.picture),
    otherFaceImages: faces.others.map((face) => base64(face.picture)),
    addedFaceIds: faces.indexed.map((face) => face.id),
  });
}

const base64 = (picture: Buffer) => picture.toString('base64');
