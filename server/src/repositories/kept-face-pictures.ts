/**
 * What a search, a saved copy of one or a watch keeps of the faces it searched with: pictures (crops as the
 * upload answered them), never descriptors, and the indexed faces the analyst added.
 */
export interface KeptFacePictures {
  /** The face it shows; null when it was kept without its picture. */
  faceImage: Buffer | null;
  /** The other uploaded faces of the person, in the order searched. */
  otherFaceImages: Buffer[];
  /** Indexed faces searched with them: results the analyst confirmed as the person. */
  addedFaceIds: number[];
}

/** The columns that keep them, as a row of searches, saved_searches or face_watches has them. */
export interface KeptFaceColumns {
  other_face_images: Uint8Array[];
  added_face_ids: number[];
}

/**
 * The kept faces of a row (none for a missing row). PGlite answers bytea as a plain Uint8Array, and
 * bigint[] elements may come back as strings.
 */
export function keptFacePictures(
  faceImage: Uint8Array | null,
  row: KeptFaceColumns | undefined,
): KeptFacePictures {
  return {
    faceImage: faceImage ? Buffer.from(faceImage) : null,
    otherFaceImages: (row?.other_face_images ?? []).map((image) => Buffer.from(image)),
    addedFaceIds: (row?.added_face_ids ?? []).map(Number),
  };
}
