import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { MARGIN } from '../../src/reports/pdf-parts.ts';

interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

/**
 * The outline of the matched face as a report of one result draws it, found on the report's pages
 * rendered by pdftoppm at 72 dpi (one pixel per point): the bounding box of the pixels of the outline's
 * colour (#ffd400) on the first page that has any, or null.
 */
export async function drawnFaceBox(pdf: Buffer): Promise<Box | null> {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'report-page-'));
  try {
    const file = path.join(folder, 'report.pdf');
    fs.writeFileSync(file, pdf);
    execFileSync('pdftoppm', ['-r', '72', '-png', file, path.join(folder, 'page')]);
    const pages = fs
      .readdirSync(folder)
      .filter((name) => name.endsWith('.png'))
      .sort((a, b) => a.length - b.length || a.localeCompare(b));
    for (const page of pages) {
      const box = await outlineOn(path.join(folder, page));
      if (box) return box;
    }
    return null;
  } finally {
    fs.rmSync(folder, { recursive: true, force: true });
  }
}

async function outlineOn(png: string): Promise<Box | null> {
  const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  let left = Infinity;
  let top = Infinity;
  let right = -Infinity;
  let bottom = -Infinity;
  for (let y = 0; y < info.height; y++) {
    for (let x = 0; x < info.width; x++) {
      const i = (y * info.width + x) * 3;
      // Saturated yellow only: photos rarely have it, the anti-aliased stroke's middle always does.
      if (data[i]! > 235 && data[i + 1]! > 190 && data[i + 1]! < 230 && data[i + 2]! < 60) {
        left = Math.min(left, x);
        right = Math.max(right, x);
        top = Math.min(top, y);
        bottom = Math.max(bottom, y);
      }
    }
  }
  return left === Infinity ? null : { x: left, y: top, width: right - left + 1, height: bottom - top + 1 };
}

/**
 * Where the face box of a result lands in the thumbnail square (side `size` points, at the left margin)
 * of a report entry: left edge and size in points, the top left to the caller (it depends on the page).
 */
export function expectedFaceBox(
  face: { faceBox: Box; imageSize: { width: number; height: number } },
  size: number,
): { x: number; width: number; height: number } {
  const scale = Math.min(size / face.imageSize.width, size / face.imageSize.height);
  return {
    x: MARGIN + (size - face.imageSize.width * scale) / 2 + face.faceBox.x * scale,
    width: face.faceBox.width * scale,
    height: face.faceBox.height * scale,
  };
}
