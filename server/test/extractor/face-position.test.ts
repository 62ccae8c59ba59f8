import { describe, expect, it } from 'vitest';
import { facePositionAmong } from '../../src/extractor/face-position.ts';

const face = (x: number, width = 100) => ({ x, width });

describe('where a face stands among the faces of its photo', () => {
  const three = [face(50), face(400), face(800)];

  it('the outermost faces are left and right, any between is centre', () => {
    expect(facePositionAmong(three[0]!, three)).toBe('left');
    expect(facePositionAmong(three[1]!, three)).toBe('centre');
    expect(facePositionAmong(three[2]!, three)).toBe('right');
    expect(facePositionAmong(face(100), [face(100), face(600)])).toBe('left');
  });

  it('a face alone, or with only small faces in the background, has no position', () => {
    expect(facePositionAmong(face(300), [face(300)])).toBeUndefined();
    expect(facePositionAmong(face(300), [face(300), face(10, 40), face(700, 30)])).toBeUndefined();
    expect(facePositionAmong(face(300), [])).toBeUndefined();
  });
});
