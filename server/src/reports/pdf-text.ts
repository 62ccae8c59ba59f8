import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Bidi } from 'bidi-js';
import * as fontkit from 'fontkit';

/**
 * Text in any script for the PDF reports. The built-in PDF fonts cover Windows-1252 only, so names in
 * Cyrillic, Hebrew or Japanese came out as "????". The reports embed Noto fonts instead (SIL Open Font
 * Licence, shipped by npm packages): each run of text gets the first font of a fallback chain that has its
 * characters, so a Latin name keeps the normal font; right-to-left runs are put in display order with the
 * Unicode bidirectional algorithm, and the font engine shapes them (Arabic joining, Devanagari conjuncts).
 * pdfkit embeds only the glyphs a document uses, so a few CJK characters add kilobytes, not megabytes.
 * Line wrapping is pdfkit's; a paragraph is reordered as a whole, which is exact for text that fits on a
 * line (names, titles) and keeps reading order within each line otherwise.
 */

export type FontWeight = 'regular' | 'bold' | 'italic';

export interface TextStyle {
  weight: FontWeight;
  size: number;
  color: string;
}

interface FontFamily {
  name: string;
  /** Font files by weight; a family without an italic uses its regular face. */
  files: Record<'regular' | 'bold', string> & { italic?: string };
}

const require = createRequire(import.meta.url);

/** A font file of an npm font package (its files live in `fonts/` beside `dist/`). */
function packageFont(pkg: string, file: string): string {
  return path.join(path.dirname(require.resolve(pkg)), '..', 'fonts', file);
}

/** In fallback order: the first family that has a character prints it. */
const FAMILIES: FontFamily[] = [
  {
    // Latin, Greek, Cyrillic and Devanagari.
    name: 'sans',
    files: {
      regular: packageFont('@embedpdf/fonts-latin', 'NotoSans-Regular.ttf'),
      bold: packageFont('@embedpdf/fonts-latin', 'NotoSans-Bold.ttf'),
      italic: packageFont('@embedpdf/fonts-latin', 'NotoSans-Italic.ttf'),
    },
  },
  {
    name: 'hebrew',
    files: {
      regular: packageFont('@embedpdf/fonts-hebrew', 'NotoSansHebrew-Regular.ttf'),
      bold: packageFont('@embedpdf/fonts-hebrew', 'NotoSansHebrew-Bold.ttf'),
    },
  },
  {
    name: 'arabic',
    files: {
      regular: packageFont('@embedpdf/fonts-arabic', 'NotoNaskhArabic-Regular.ttf'),
      bold: packageFont('@embedpdf/fonts-arabic', 'NotoNaskhArabic-Bold.ttf'),
    },
  },
  {
    // Chinese ideographs and Japanese kana.
    name: 'cjk',
    files: {
      regular: packageFont('@embedpdf/fonts-sc', 'NotoSansHans-Regular.otf'),
      bold: packageFont('@embedpdf/fonts-sc', 'NotoSansHans-Bold.otf'),
    },
  },
  {
    // Hangul (and the hanja the Chinese font lacks).
    name: 'korean',
    files: {
      regular: packageFont('@embedpdf/fonts-kr', 'NotoSansKR-Regular.otf'),
      bold: packageFont('@embedpdf/fonts-kr', 'NotoSansKR-Bold.otf'),
    },
  },
];
const SANS = FAMILIES[0]!;

/**
 * Each font file is read and parsed once per process and shared by every document: parsing the tables of
 * the CJK fonts took most of a report's time. pdfkit takes a parsed font and keeps what a document uses
 * (its subset of glyphs) in the document's own objects.
 */
const parsedFonts = new Map<string, fontkit.Font>();
function parsed(file: string): fontkit.Font {
  let font = parsedFonts.get(file);
  if (!font) {
    font = fontkit.create(readFileSync(file));
    parsedFonts.set(file, font);
  }
  return font;
}

/** The regular face of each family answers "does this family have that character?". */
function covers(family: FontFamily, codePoint: number): boolean {
  return parsed(family.files.regular).hasGlyphForCodePoint(codePoint);
}

function fileOf(family: FontFamily, weight: FontWeight): string {
  return weight === 'italic' ? (family.files.italic ?? family.files.regular) : family.files[weight];
}

/** Registers the font with the document on first use (only used fonts get embedded) and selects it. */
function selectFont(doc: PDFKit.PDFDocument, family: FontFamily, weight: FontWeight): void {
  const name = `${family.name}-${weight}`;
  let registered = registeredFonts.get(doc);
  if (!registered) {
    registered = new Set();
    registeredFonts.set(doc, registered);
  }
  if (!registered.has(name)) {
    // pdfkit accepts a parsed font as a source (its types list file names and bytes only).
    doc.registerFont(name, parsed(fileOf(family, weight)) as unknown as Buffer);
    registered.add(name);
  }
  doc.font(name);
}
const registeredFonts = new WeakMap<PDFKit.PDFDocument, Set<string>>();

// bidi-js is CommonJS whose export is the factory itself (its types describe it as a default export).
const bidi = (require('bidi-js') as () => Bidi)();
/** Explicit direction marks and embeddings: they steer the bidi algorithm but have no glyph. */
const BIDI_CONTROL = /[\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
/** Text that the first font prints left to right as it is: no run splitting or reordering needed. */
const PLAIN_LATIN = /^[\u0020-\u007e\u00a0-\u024f\u2010-\u2027\u2030-\u203a\u20ac\n]*$/;

interface Fragment {
  family: FontFamily;
  level: number;
  text: string;
}

/** Characters with no direction of their own (spaces, digits, punctuation, marks) stay in the running font. */
function isStrong(char: string): boolean {
  const type = bidi.getBidiCharTypeName(char);
  return type === 'L' || type === 'R' || type === 'AL';
}

function familyFor(char: string, current: FontFamily | null): FontFamily {
  const codePoint = char.codePointAt(0)!;
  if (current && !isStrong(char) && covers(current, codePoint)) return current;
  return FAMILIES.find((family) => covers(family, codePoint)) ?? SANS;
}

/** Texts up to this long fit one line of the reports' narrowest column at their smallest size. */
const ONE_LINE_CHARS = 40;

/**
 * Splits a paragraph into runs of one font and one bidi level, in display order. A right-to-left run
 * stays in reading order when it holds Hebrew or Arabic letters: the font engine shapes it and lays it
 * out from the right. Only runs of neutral characters inside right-to-left text are reversed here.
 */
export function displayRuns(text: string): Fragment[] {
  const normalized = text.normalize('NFC');
  if (PLAIN_LATIN.test(normalized)) return normalized ? [{ family: SANS, level: 0, text: normalized }] : [];
  // A short one-line text (a case name, a person's name) runs the way its first letter reads, as
  // dir="auto" on screen: an Arabic or Hebrew name right to left with its Latin or CJK words inside. The
  // runs are ordered here, before pdfkit breaks lines, so a paragraph that may wrap keeps the report's
  // left-to-right order (reversed whole, its last words would come first on its first line).
  const direction = normalized.length <= ONE_LINE_CHARS && !normalized.includes('\n') ? 'auto' : 'ltr';
  const { levels } = bidi.getEmbeddingLevels(normalized, direction);
  const runs: Fragment[] = [];
  let index = 0;
  for (const char of normalized) {
    const level = levels[index]!;
    index += char.length;
    if (BIDI_CONTROL.test(char)) continue;
    const last = runs.at(-1);
    // A line break is a run of its own, so that reordering never crosses it.
    const family = char === '\n' ? SANS : familyFor(char, last?.family ?? null);
    if (last && last.family === family && last.level === level && char !== '\n' && last.text !== '\n') {
      last.text += char;
    } else {
      runs.push({ family, level, text: char });
    }
  }
  return reorder(runs);
}

/** Rule L2 of the bidi algorithm on whole runs: from the highest level down to 1, reverse every sequence. */
function reorder(runs: Fragment[]): Fragment[] {
  const highest = Math.max(0, ...runs.map((run) => run.level));
  const ordered = [...runs];
  for (let level = highest; level >= 1; level--) {
    let start = 0;
    while (start < ordered.length) {
      if (ordered[start]!.level < level) {
        start++;
        continue;
      }
      let end = start;
      while (end < ordered.length && ordered[end]!.level >= level) end++;
      ordered.splice(start, end - start, ...ordered.slice(start, end).reverse());
      start = end;
    }
  }
  return ordered.map((run) => {
    if (run.level % 2 === 0 || [...run.text].some(isStrong)) return run;
    // Neutral characters between right-to-left words: mirrored and reversed, as the font engine
    // would do for them if they carried a right-to-left script.
    const reversed = [...run.text]
      .reverse()
      .map((char) => bidi.getMirroredCharacter(char) ?? char)
      .join('');
    return { ...run, text: reversed };
  });
}

/**
 * Writes text in the style at (x, y) or where the document stands, like `doc.text`: one call per run of
 * text, chained with `continued` so that pdfkit wraps the whole as one paragraph.
 */
export function write(
  doc: PDFKit.PDFDocument,
  text: string,
  style: TextStyle,
  options: PDFKit.Mixins.TextOptions & { x?: number; y?: number } = {},
): void {
  const { x, y, ...textOptions } = options;
  const runs = displayRuns(text);
  if (runs.length === 0) runs.push({ family: SANS, level: 0, text: '' });
  doc.fontSize(style.size).fillColor(style.color);
  runs.forEach((run, i) => {
    selectFont(doc, run.family, style.weight);
    const runOptions = {
      ...textOptions,
      // pdfkit lays text out word by word in reading order unless features are given; a right-to-left
      // run must be laid out whole so that its words come out from right to left.
      ...(run.level % 2 === 1 ? { features: textOptions.features ?? [] } : {}),
      continued: i < runs.length - 1 ? true : textOptions.continued,
    };
    if (i === 0 && (x !== undefined || y !== undefined)) doc.text(run.text, x, y, runOptions);
    else doc.text(run.text, runOptions);
  });
}
