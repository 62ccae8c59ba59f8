import type { FacePosition } from './analysis-types.ts';

interface Span {
  x: number;
  width: number;
}

/**
 * Where `face` stands among the faces of its photo, left to right, as a caption would say it: "left" and
 * "right" for the outermost, "centre" for any between. Faces under half its width (people in the
 * background) are not counted; undefined when no other face is left.
 */
export function facePositionAmong(face: Span, faces: readonly Span[]): FacePosition | undefined {
  const centreOf = (span: Span) => span.x + span.width / 2;
  const own = centreOf(face);
  // The face itself is among `faces`: others are those whose centre is more than a pixel away.
  const others = faces
    .filter((other) => other.width >= face.width / 2)
    .map(centreOf)
    .filter((centre) => Math.abs(centre - own) > 1);
  if (others.length === 0) return undefined;
  if (others.every((centre) => centre > own)) return 'left';
  if (others.every((centre) => centre < own)) return 'right';
  return 'centre';
}
