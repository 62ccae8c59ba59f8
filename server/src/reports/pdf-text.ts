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
 * A paragraph runs the way its first letter reads. Text without right-to-left letters is wrapped by
 * pdfkit. Text with Arabic or Hebrew in it is broken into lines here, and each line is put in display order
 * on its own (rules L1–L2 of the bidirectional algorithm): reordered as a whole and then wrapped, a long
 * Arabic title's last words came first, at the right-hand start of its first line.
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

/** A font file of an npm font package of EmbedPDF's (its files live in `fonts/` beside `dist/`). */
function packageFont(pkg: string, file: string): string {
  return path.join(path.dirname(require.resolve(pkg)), '..', 'fonts', file);
}

/**
 * The regular and bold faces of a Google font as Expo's npm packages ship it: one folder per weight beside
 * the package's main file, e.g. `400Regular/NotoSansThai_400Regular.ttf`.
 */
function googleFontFiles(pkg: string, family: string): FontFamily['files'] {
  const root = path.dirname(require.resolve(pkg));
  return {
    regular: path.join(root, '400Regular', `${family}_400Regular.ttf`),
    bold: path.join(root, '700Bold', `${family}_700Bold.ttf`),
  };
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
  // Scripts of names the fonts above lack: each would print as empty boxes.
  { name: 'thai', files: googleFontFiles('@expo-google-fonts/noto-sans-thai', 'NotoSansThai') },
  { name: 'georgian', files: googleFontFiles('@expo-google-fonts/noto-sans-georgian', 'NotoSansGeorgian') },
  { name: 'armenian', files: googleFontFiles('@expo-google-fonts/noto-sans-armenian', 'NotoSansArmenian') },
  { name: 'bengali', files: googleFontFiles('@expo-google-fonts/noto-sans-bengali', 'NotoSansBengali') },
  { name: 'tamil', files: googleFontFiles('@expo-google-fonts/noto-sans-tamil', 'NotoSansTamil') },
  // Last: it also has digits and punctuation, which the text fonts print. Monochrome outlines (a PDF
  // font has no colour layers).
  { name: 'emoji', files: googleFontFiles('@expo-google-fonts/noto-emoji', 'NotoEmoji') },
];
const SANS = FAMILIES[0]!;
const EMOJI = FAMILIES.at(-1)!;
/** Zero-width joiner, emoji variation selector, skin tones, flag tags: they join or modify an emoji. */
function joinsEmoji(char: string): boolean {
  const code = char.codePointAt(0)!;
  return (
    code === 0x200d ||
    code === 0xfe0f ||
    (code >= 0x1f3fb && code <= 0x1f3ff) ||
    (code >= 0xe0020 && code <= 0xe007f)
  );
}

/**
 * Each font file is read and parsed once per process: parsing the tables of the CJK fonts took most of a
 * report's time. pdfkit takes a parsed font and keeps what a document uses (its subset of glyphs) in the
 * document's own objects.
 */
const parsedFonts = new Map<string, fontkit.Font>();
function parsed(file: string): fontkit.Font {
  let font = parsedFonts.get(file);
  if (!font) {
    font = fontkit.create(fileBytes(file));
    parsedFonts.set(file, font);
  }
  return font;
}

/**
 * The font a document draws with. The parsed font keeps, per glyph, the characters it was first drawn for,
 * and a document's text layer (what copying and searching the PDF give) is written from them: a glyph met
 * first in another document's text gave a later report an Arabic word without its last letter. So the
 * document gets a parse of its own where it draws contextual forms (Arabic, Hebrew, Latin, the small
 * fonts), and shares the parse of the CJK fonts (no contextual forms; their tables are costly to parse).
 */
function fontForDocument(family: FontFamily, file: string): fontkit.Font {
  if (family.name === 'cjk' || family.name === 'korean') return parsed(file);
  return fontkit.create(fileBytes(file));
}
const fontFiles = new Map<string, Buffer>();
function fileBytes(file: string): Buffer {
  let bytes = fontFiles.get(file);
  if (!bytes) {
    bytes = readFileSync(file);
    fontFiles.set(file, bytes);
  }
  return bytes;
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
    doc.registerFont(name, fontForDocument(family, fileOf(family, weight)) as unknown as Buffer);
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
  // What joins or modifies an emoji (zero-width joiner, variation selector, skin tone, flag tags) stays
  // in its run, which the font shapes into one picture; a space or a digit after an emoji goes back to the
  // text fonts, the emoji font's are far wider.
  if (current === EMOJI && joinsEmoji(char)) return current;
  if (current && current !== EMOJI && !isStrong(char) && covers(current, codePoint)) return current;
  return FAMILIES.find((family) => covers(family, codePoint)) ?? SANS;
}

/** Texts up to this long fit one line of the reports' narrowest column at their smallest size. */
const ONE_LINE_CHARS = 40;

type Direction = 'ltr' | 'rtl';

/**
 * The direction of a paragraph: that of its first letter that has one, outside isolates (rule P2 of the
 * bidirectional algorithm); left to right when it has none (digits, punctuation).
 */
export function paragraphDirection(paragraph: string): Direction {
  let isolates = 0;
  for (const char of paragraph) {
    const type = bidi.getBidiCharTypeName(char);
    if (type === 'LRI' || type === 'RLI' || type === 'FSI') isolates++;
    else if (type === 'PDI') isolates = Math.max(0, isolates - 1);
    else if (isolates === 0 && type === 'L') return 'ltr';
    else if (isolates === 0 && (type === 'R' || type === 'AL')) return 'rtl';
  }
  return 'ltr';
}

/** Whether a text has a right-to-left letter (Hebrew, Arabic…) anywhere. */
function hasRightToLeft(text: string): boolean {
  if (PLAIN_LATIN.test(text)) return false;
  for (const char of text) {
    const type = bidi.getBidiCharTypeName(char);
    if (type === 'R' || type === 'AL') return true;
  }
  return false;
}

/**
 * Text quoted inside a line of another direction, isolated as <bdi> is on screen: its words keep their
 * own order ("• Page: " then an Arabic sentence with a Latin name in it, read from its right).
 */
export function isolated(text: string): string {
  return `\u2068${text}\u2069`;
}

/** A character of a text in reading order, with its bidi level and the font family that prints it. */
interface Placed {
  char: string;
  level: number;
  family: FontFamily;
}

/** The characters of `text` in reading order with their levels (direction marks left out: no glyph). */
function placedChars(text: string, direction: Direction | 'auto'): Placed[] {
  const { levels } = bidi.getEmbeddingLevels(text, direction);
  const placed: Placed[] = [];
  let index = 0;
  for (const char of text) {
    const level = levels[index]!;
    index += char.length;
    if (BIDI_CONTROL.test(char)) continue;
    // A line break is printed by the first font, as a run of its own (runsOf).
    const family = char === '\n' ? SANS : familyFor(char, placed.at(-1)?.family ?? null);
    placed.push({ char, level, family });
  }
  return placed;
}

/** Consecutive characters of one font and one level as runs, in reading order; a line break alone. */
function runsOf(chars: readonly Placed[]): Fragment[] {
  const runs: Fragment[] = [];
  for (const { char, level, family } of chars) {
    const last = runs.at(-1);
    if (last && last.family === family && last.level === level && char !== '\n' && last.text !== '\n') {
      last.text += char;
    } else {
      runs.push({ family, level, text: char });
    }
  }
  return runs;
}

/**
 * Splits a text into runs of one font and one bidi level, in display order, for pdfkit to wrap. A
 * right-to-left run stays in reading order when it holds Hebrew or Arabic letters: the font engine shapes
 * it and lays it out from the right. Only runs of neutral characters inside right-to-left text are
 * reversed here.
 */
export function displayRuns(text: string): Fragment[] {
  const normalized = text.normalize('NFC');
  if (PLAIN_LATIN.test(normalized)) return normalized ? [{ family: SANS, level: 0, text: normalized }] : [];
  // A short one-line text (a case name, a person's name) runs the way its first letter reads, as
  // dir="auto" on screen: an Arabic or Hebrew name right to left with its Latin or CJK words inside. A
  // longer text with right-to-left letters comes here only when it continues another on its line (write
  // lays out every other such text line by line): ordered as a whole before pdfkit breaks its lines, it keeps
  // the report's left-to-right order, so that its last words never move to the start of its first line.
  const direction = normalized.length <= ONE_LINE_CHARS && !normalized.includes('\n') ? 'auto' : 'ltr';
  return reorder(runsOf(placedChars(normalized, direction)));
}

const ARABIC_DIGIT = /[\u0660-\u0669\u06f0-\u06f9]/;

const reversedText = (text: string) => [...text].reverse().join('');

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
    // Arabic-Indic and Persian digits are of the Arabic script, which the font engine always lays out from
    // the right: a number of them (an even level) is handed over reversed, so that it prints left to right.
    if (run.level % 2 === 0)
      return ARABIC_DIGIT.test(run.text) ? { ...run, text: reversedText(run.text) } : run;
    if ([...run.text].some(isStrong)) return run;
    // Neutral characters between right-to-left words: mirrored and reversed, as the font engine
    // would do for them if they carried a right-to-left script.
    const reversed = [...reversedText(run.text)]
      .map((char) => bidi.getMirroredCharacter(char) ?? char)
      .join('');
    return { ...run, text: reversed };
  });
}

/** The documents whose last text was written with `continued`: the next text goes on the same line. */
const continuing = new WeakSet<PDFKit.PDFDocument>();

/**
 * Writes text in the style at (x, y) or where the document stands, like `doc.text`. Text without
 * right-to-left letters, and a text that continues another on its line, is written one call per run,
 * chained with `continued` so that pdfkit wraps the whole as one paragraph; other text is laid out line by
 * line here (writeLines), each line in its own display order.
 */
export function write(
  doc: PDFKit.PDFDocument,
  text: string,
  style: TextStyle,
  options: PDFKit.Mixins.TextOptions & { x?: number; y?: number } = {},
): void {
  const { x, y, ...textOptions } = options;
  const normalized = text.normalize('NFC');
  const partOfLine = textOptions.continued === true || continuing.has(doc);
  if (textOptions.continued === true) continuing.add(doc);
  else continuing.delete(doc);
  doc.fontSize(style.size).fillColor(style.color);
  if (!partOfLine && hasRightToLeft(normalized)) {
    writeLines(doc, normalized, style, { x: x ?? doc.x, y: y ?? doc.y, ...textOptions });
    return;
  }
  const runs = displayRuns(normalized);
  if (runs.length === 0) runs.push({ family: SANS, level: 0, text: '' });
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

type LineOptions = PDFKit.Mixins.TextOptions & { x: number; y: number };

/** How wide a run prints in the document's current size, laid out as it will be drawn. */
function runWidth(doc: PDFKit.PDFDocument, run: Fragment, style: TextStyle, options: LineOptions): number {
  const features = run.level % 2 === 1 ? (options.features ?? []) : undefined;
  const characterSpacing = options.characterSpacing ?? 0;
  // Shaping a right-to-left run is not cached by pdfkit, and a line is measured word by word and again
  // as a whole: the widths are kept per document.
  const key = `${run.family.name}-${style.weight}|${style.size}|${features ? 'rtl' : 'ltr'}|${characterSpacing}|${run.text}`;
  let widths = measuredWidths.get(doc);
  if (!widths) {
    widths = new Map();
    measuredWidths.set(doc, widths);
  }
  let width = widths.get(key);
  if (width === undefined) {
    selectFont(doc, run.family, style.weight);
    width = doc.widthOfString(run.text, { ...(features ? { features } : {}), characterSpacing });
    widths.set(key, width);
  }
  return width;
}
const measuredWidths = new WeakMap<PDFKit.PDFDocument, Map<string, number>>();

const isSpace = (placed: Placed) => /\s/.test(placed.char);

/** A line's characters without the spaces at its end (rule L1: they print nothing where the line ends). */
function trimEnd(chars: readonly Placed[]): Placed[] {
  let end = chars.length;
  while (end > 0 && isSpace(chars[end - 1]!)) end--;
  return chars.slice(0, end);
}

/**
 * The lines of one paragraph, each a slice of its characters in reading order: words (a run of letters
 * with the spaces after it) are added while they fit `width`; a word too long for a line of its own is
 * cut where the line is full. Words are measured one by one (spaces end Arabic joining, so a line is as
 * wide as its words).
 */
function breakLines(chars: readonly Placed[], width: number, measure: (chars: readonly Placed[]) => number) {
  const words: Placed[][] = [];
  for (const placed of chars) {
    const word = words.at(-1);
    if (!word || (!isSpace(placed) && isSpace(word.at(-1)!))) words.push([placed]);
    else word.push(placed);
  }
  const lines: Placed[][] = [];
  let line: Placed[] = [];
  // The width of the line's words, spaces after them included.
  let lineWidth = 0;
  for (const word of words) {
    if (line.length > 0 && lineWidth + measure(trimEnd(word)) > width) {
      lines.push(line);
      line = [];
      lineWidth = 0;
    }
    line.push(...word);
    lineWidth += measure(word);
    while (trimEnd(line).length > 1 && measure(trimEnd(line)) > width) {
      // The longest start of the line that fits, at least one character.
      let fits = 1;
      let tooLong = trimEnd(line).length;
      while (tooLong - fits > 1) {
        const middle = Math.floor((fits + tooLong) / 2);
        if (measure(line.slice(0, middle)) <= width) fits = middle;
        else tooLong = middle;
      }
      lines.push(line.slice(0, fits));
      line = line.slice(fits);
      lineWidth = measure(line);
    }
  }
  if (line.length > 0 || lines.length === 0) lines.push(line);
  return lines;
}

/** Ascent, descent and line gap of a family's face at a font size, in points. */
function metricsOf(family: FontFamily, style: TextStyle) {
  const font = parsed(fileOf(family, style.weight));
  const scale = style.size / font.unitsPerEm;
  return { ascent: font.ascent * scale, descent: -font.descent * scale, gap: font.lineGap * scale };
}

/**
 * Lays out bidirectional text, as `doc.text` would with `width`, `height` and `ellipsis`: each paragraph
 * (between line breaks) gets its own direction, is broken into lines in reading order, and each line is
 * put in display order on its own, its runs placed from the left on one baseline. A right-to-left
 * paragraph of several lines is aligned to the right, where its lines start; one that fits on one line
 * stays where the text starts, as a name beside its label. `align` overrides both.
 */
function writeLines(doc: PDFKit.PDFDocument, text: string, style: TextStyle, options: LineOptions): void {
  const left = options.x;
  const weight = style.weight;
  const width =
    options.lineBreak === false
      ? Infinity
      : (options.width ?? doc.page.width - left - doc.page.margins.right);
  const measure = (chars: readonly Placed[]) =>
    runsOf(chars).reduce((sum, run) => sum + runWidth(doc, run, style, options), 0);
  const lines = text.split('\n').flatMap((paragraph) => {
    const direction = paragraphDirection(paragraph);
    const chars = placedChars(paragraph, direction);
    const broken = breakLines(chars, width, measure);
    return broken.map((line) => ({ chars: line, direction, several: broken.length > 1 }));
  });
  const bottom = options.height === undefined ? undefined : options.y + options.height;
  const runOptions = {
    lineBreak: false,
    ...(options.link !== undefined ? { link: options.link } : {}),
    ...(options.underline ? { underline: true } : {}),
    ...(options.characterSpacing ? { characterSpacing: options.characterSpacing } : {}),
  };
  let top = options.y;
  for (const [index, line] of lines.entries()) {
    // Rule L1: spaces at the end of a line are dropped; rule L2 orders what is left for display.
    let chars = trimEnd(line.chars);
    const metrics = (chars.length > 0 ? [...new Set(chars.map((c) => c.family))] : [SANS]).map((family) =>
      metricsOf(family, style),
    );
    const ascent = Math.max(...metrics.map((m) => m.ascent));
    const height =
      ascent +
      Math.max(...metrics.map((m) => m.descent)) +
      Math.max(...metrics.map((m) => m.gap)) +
      (options.lineGap ?? 0);
    // Within `height`, the first line always; the last that fits ends there.
    let lastOfBox = false;
    if (bottom !== undefined) {
      if (index > 0 && top + height > bottom) break;
      lastOfBox = index < lines.length - 1 && top + 2 * height > bottom;
      if (lastOfBox && options.ellipsis) {
        // More text follows: the line ends with an ellipsis (at its end in reading order, the left of a
        // right-to-left paragraph).
        const mark = options.ellipsis === true ? '…' : options.ellipsis;
        const level = line.direction === 'rtl' ? 1 : 0;
        const ellipsis = [...mark].map((char) => ({ char, level, family: familyFor(char, null) }));
        while (chars.length > 0 && measure([...chars, ...ellipsis]) > width) {
          chars = trimEnd(chars.slice(0, -1));
        }
        chars = [...chars, ...ellipsis];
      }
    } else if (top + height > doc.page.maxY() && top > doc.page.margins.top) {
      doc.addPage();
      top = doc.y;
    }
    const runs = reorder(runsOf(chars)).map((run) => ({ run, width: runWidth(doc, run, style, options) }));
    const lineWidth = runs.reduce((sum, { width: w }) => sum + w, 0);
    const align = options.align ?? (line.direction === 'rtl' && line.several ? 'right' : 'left');
    let x = left;
    if (align === 'right' && Number.isFinite(width)) x = left + width - lineWidth;
    if (align === 'center' && Number.isFinite(width)) x = left + (width - lineWidth) / 2;
    for (const { run, width: runW } of runs) {
      selectFont(doc, run.family, weight);
      // Every run on the line's baseline: pdfkit places a run by its top, which differs between fonts.
      const runTop = top + ascent - metricsOf(run.family, style).ascent;
      doc.text(run.text, x, runTop, {
        ...runOptions,
        ...(run.level % 2 === 1 ? { features: options.features ?? [] } : {}),
      });
      x += runW;
    }
    top += height;
    if (lastOfBox) break;
  }
  doc.x = left;
  doc.y = top;
}
