import { isPossibleMinor } from '../face/age/possible-minor.ts';
import type { FaceEngine } from '../face/face-engine.ts';
import { faceSizePx, l2Normalise } from '../face/similarity.ts';
import type { SearchRepository } from '../repositories/search.repository.ts';

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
 * Every face a stored search searched with, under the engine's model: the face it shows, read again from
 * its kept picture (undefined when it kept none or the engine finds no face in it), the other uploaded
 * faces of the person, read again from theirs (one in which no face is found any more is left out), and
 * the indexed faces of `faceIds` (the results it added, and any chosen now), described by that model. A
 * search flagged at upload keeps its shown face flagged: a picture's own estimate can only add the flag.
 */
export async function searchedFaces(
  searches: SearchRepository,
  engine: FaceEngine,
  search: { hashed_id: string; organization_id: number; possible_minor: boolean },
  faceIds: readonly number[],
) {
  const kept = await searches.findKeptFaces(search.hashed_id, search.organization_id);
  const read = async (picture: Buffer) => {
    const face = await descriptorOfCrop(engine, picture, search.organization_id);
    return face && { ...face, picture };
  };
  const shown = kept.faceImage ? await read(kept.faceImage) : undefined;
  const others = (await Promise.all(kept.otherFaceImages.map(read))).filter((face) => face !== undefined);
  const indexed = (await searches.findIndexedFaces(faceIds)).filter(
    (face) => face.modelId === engine.modelId,
  );
  return {
    keptPicture: kept.faceImage !== null,
    shown: shown && { ...shown, possibleMinor: shown.possibleMinor || search.possible_minor },
    others,
    indexed,
  };
}
