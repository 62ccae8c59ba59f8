import { matchBandLabel, similarityText } from '@osint/contract/match-score';
import PDFDocument from 'pdfkit';
import { write } from './pdf-text.ts';

/** Building blocks shared by the PDF reports (saved searches, data extractions): one look for both. */
export const INK = '#0f172a';
export const MUTED = '#475569';
export const LINK = '#1d4ed8';
export const RULE = '#dbe1ec';
export const ACCENT = '#2563eb';
export const WARN = '#b45309';
export const MARGIN = 50;
export const FOOTER_SPACE = 40;
/** Reports are read anywhere: their dates are UTC days and their times say UTC. */
export const REPORT_TIME_ZONE = 'UTC';

/**
 * `<prefix>-<name slug>-<YYYY-MM-DD>.pdf`, safe for every file system: letters and digits of any script
 * (an Arabic or Chinese case name stays readable), everything else a hyphen, at most 40 characters.
 */
export function reportFileName(prefix: string, name: string, generatedAt: Date, fallback: string): string {
  const slug =
    [
      ...name
        .normalize('NFKC')
        .toLowerCase()
        .replace(/[^\p{L}\p{M}\p{N}]+/gu, '-')
        .replace(/^-+|-+$/g, ''),
    ]
      .slice(0, 40)
      .join('')
      .replace(/-+$/, '') || fallback;
  return `${prefix}-${slug}-${generatedAt.toISOString().slice(0, 10)}.pdf`;
}

/** An A4 document with buffered pages (for page numbers) and the promise of its bytes. */
export function startDocument(info: { title: string; author: string }) {
  const doc = new PDFDocument({
    size: 'A4',
    margin: MARGIN,
    bufferPages: true,
    // Document properties are UTF-16 strings in the PDF: any script is kept as it is.
    info: { Title: info.title, Author: info.author, Creator: 'OSINT Platform' },
  });
  const chunks: Buffer[] = [];
  doc.on('data', (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  return { doc, done };
}

export function contentWidth(doc: PDFKit.PDFDocument): number {
  return doc.page.width - MARGIN * 2;
}

/** A section heading at the top of a fresh page. */
export function heading(doc: PDFKit.PDFDocument, text: string): void {
  write(doc, text, { weight: 'bold', size: 16, color: INK }, { x: MARGIN, y: MARGIN });
  doc.moveDown(0.6);
}

/** Starts a new page when less than `height` is left above the footer. */
export function ensureSpace(doc: PDFKit.PDFDocument, height: number): void {
  if (doc.y + height > doc.page.height - MARGIN - FOOTER_SPACE) {
    doc.addPage();
    doc.y = MARGIN;
  }
}

/** The accent bar and the kicker line of a cover page. */
function coverKicker(doc: PDFKit.PDFDocument, kicker: string): void {
  doc.rect(0, 0, doc.page.width, 8).fill(ACCENT);
  write(
    doc,
    kicker,
    { weight: 'bold', size: 10, color: ACCENT },
    { x: MARGIN, y: MARGIN + 10, characterSpacing: 1 },
  );
  doc.moveDown(1);
}

/** The searched face in a rounded frame with its caption; returns nothing, leaves doc.y unchanged. */
function coverFace(doc: PDFKit.PDFDocument, image: Buffer | null, top: number, size: number): void {
  doc.save();
  doc.roundedRect(MARGIN, top, size, size, 8).clip();
  try {
    if (!image) throw new Error('no image');
    doc.image(image, MARGIN, top, { cover: [size, size], align: 'center', valign: 'center' });
  } catch {
    doc.rect(MARGIN, top, size, size).fill('#eef1f7');
  }
  doc.restore();
  doc.roundedRect(MARGIN, top, size, size, 8).lineWidth(1).stroke(RULE);
  write(
    doc,
    'Searched face',
    { weight: 'regular', size: 8, color: MUTED },
    { x: MARGIN, y: top + size + 4, width: size, align: 'center' },
  );
}

/** Label/value pairs in a column starting at (x, top); returns the y below the last one. */
function facts(
  doc: PDFKit.PDFDocument,
  pairs: ReadonlyArray<readonly [string, string]>,
  x: number,
  top: number,
  width: number,
): number {
  let y = top;
  for (const [label, value] of pairs) {
    write(
      doc,
      label.toUpperCase(),
      { weight: 'regular', size: 8, color: MUTED },
      { x, y, width, characterSpacing: 0.5 },
    );
    y = doc.y + 1;
    write(doc, value, { weight: 'bold', size: 11, color: INK }, { x, y, width });
    y = doc.y + 8;
  }
  return y;
}

export function rule(doc: PDFKit.PDFDocument, width = 1): void {
  doc
    .moveTo(MARGIN, doc.y)
    .lineTo(MARGIN + contentWidth(doc), doc.y)
    .lineWidth(width)
    .stroke(RULE);
}

/** A labelled, clickable URL. */
export function link(doc: PDFKit.PDFDocument, label: string, url: string, x: number, width: number): void {
  write(
    doc,
    label.toUpperCase(),
    { weight: 'regular', size: 8, color: MUTED },
    { x, y: doc.y, width, characterSpacing: 0.5 },
  );
  write(
    doc,
    url,
    { weight: 'regular', size: 9, color: LINK },
    { x, y: doc.y, width, link: url, underline: true },
  );
  doc.moveDown(0.3);
}

/** The matched face in its image: the box in the image's pixels, and the image's size in pixels. */
export interface MatchedFace {
  box: { x: number; y: number; width: number; height: number };
  imageSize: { width: number; height: number };
}

/** Colour of the matched face's outline, as on screen. */
export const FACE_BOX_COLOUR = '#ffd400';

/**
 * A result's thumbnail in a square at the left margin (with the matched face outlined, when known), or a
 * grey "No thumbnail" box.
 */
function thumbnail(
  doc: PDFKit.PDFDocument,
  image: Buffer | null,
  top: number,
  size: number,
  face: MatchedFace | null,
): void {
  let drawn = false;
  if (image) {
    try {
      doc.image(image, MARGIN, top, { fit: [size, size], align: 'center', valign: 'center' });
      drawn = true;
    } catch {
      drawn = false;
    }
  }
  if (drawn && face) {
    // The thumbnail is the whole image scaled down: fitted into the square the way the image was.
    const { box, imageSize } = face;
    const scale = Math.min(size / imageSize.width, size / imageSize.height);
    const left = MARGIN + (size - imageSize.width * scale) / 2;
    const upper = top + (size - imageSize.height * scale) / 2;
    doc
      .rect(left + box.x * scale, upper + box.y * scale, box.width * scale, box.height * scale)
      .lineWidth(1.5)
      .stroke(FACE_BOX_COLOUR);
  }
  if (!drawn) {
    doc.rect(MARGIN, top, size, size).fill('#eef1f7');
    write(
      doc,
      'No thumbnail',
      { weight: 'regular', size: 8, color: MUTED },
      { x: MARGIN, y: top + size / 2 - 4, width: size, align: 'center' },
    );
  }
  doc.rect(MARGIN, top, size, size).lineWidth(0.5).stroke(RULE);
}

/** "Page n of m" at the bottom right of every page. */
export function pageNumbers(doc: PDFKit.PDFDocument): void {
  const range = doc.bufferedPageRange();
  for (let i = range.start; i < range.start + range.count; i++) {
    doc.switchToPage(i);
    // Writing inside the bottom margin must not start a new page.
    const bottom = doc.page.margins.bottom;
    doc.page.margins.bottom = 0;
    write(
      doc,
      `Page ${i + 1} of ${range.count}`,
      { weight: 'regular', size: 8, color: MUTED },
      { x: MARGIN, y: doc.page.height - 32, width: contentWidth(doc), align: 'right', lineBreak: false },
    );
    doc.page.margins.bottom = bottom;
  }
}

/** What a report's cover shows: kicker, title, description, the searched face with key facts, a note. */
export interface CoverContent {
  kicker: string;
  title: string;
  description: string;
  image: Buffer | null;
  facts: ReadonlyArray<readonly [string, string]>;
  /** What the report's numbers mean, under the facts. */
  explanation: string;
  organizationName: string;
  restricted: boolean;
}

const COVER_FACE = 150;

/** The first page of a report. */
export function cover(doc: PDFKit.PDFDocument, content: CoverContent): void {
  const width = contentWidth(doc);
  coverKicker(doc, content.kicker);
  write(doc, content.title, { weight: 'bold', size: 24, color: INK }, { width });
  if (content.description) {
    doc.moveDown(0.4);
    write(doc, content.description, { weight: 'regular', size: 11, color: MUTED }, { width });
  }
  doc.moveDown(1.2);
  // The face and its facts stay together: after a long description they start the next page.
  ensureSpace(doc, COVER_FACE + 24 + 16 * content.facts.length);
  const top = doc.y;
  coverFace(doc, content.image, top, COVER_FACE);
  const x = MARGIN + COVER_FACE + 24;
  const y = facts(doc, content.facts, x, top, width - COVER_FACE - 24);
  doc.y = Math.max(y, top + COVER_FACE + 24) + 16;
  rule(doc);
  doc.moveDown(1);
  write(
    doc,
    content.explanation,
    { weight: 'regular', size: 9, color: MUTED },
    { x: MARGIN, y: doc.y, width },
  );
  coverFooter(doc, content.organizationName, content.restricted);
}

/** One result of a report's result list: the common frame around the report's own lines. */
export interface ResultEntry {
  thumbnail: Buffer | null;
  /** The matched face, outlined on the thumbnail; null when not known. */
  face?: MatchedFace | null | undefined;
  /** Side of the thumbnail square. */
  thumbSize: number;
  title: string;
  similarity: number;
  /** The face model that computed `similarity`, whose scale gives the band (null: not known). */
  scoreModel: string | null;
  sourceUrl: string;
  imageUrl: string;
  restricted: boolean;
}

/**
 * Thumbnail at the left; at its right the title with the similarity, then the lines `details` writes
 * (at x, within width), then the source and image links (or the subscribers-only note); a rule below.
 */
export function resultEntry(
  doc: PDFKit.PDFDocument,
  entry: ResultEntry,
  details: (x: number, width: number) => void,
): void {
  const size = entry.thumbSize;
  const x = MARGIN + size + 18;
  const width = contentWidth(doc) - size - 18;
  // Room for the thumbnail and for the text beside it as far as it can be told before writing it (the
  // title, a few detail lines, the links, however long): an entry is not cut in the middle of an address.
  ensureSpace(doc, Math.max(size, textHeightEstimate(doc, entry, width)) + 20);
  const top = doc.y;
  const page = doc.page;
  thumbnail(doc, entry.thumbnail, top, size, entry.face ?? null);
  write(doc, entry.title, { weight: 'bold', size: 12, color: INK }, { x, y: top, width, continued: true });
  write(
    doc,
    `   ${matchBandLabel(entry.similarity, entry.scoreModel)} (${similarityText(entry.similarity)})`,
    {
      weight: 'regular',
      size: 12,
      color: ACCENT,
    },
  );
  details(x, width);
  if (entry.restricted) {
    write(
      doc,
      'Original sources: subscribers only.',
      { weight: 'italic', size: 9, color: MUTED },
      { x, y: doc.y, width },
    );
  } else {
    link(doc, 'Source page', entry.sourceUrl, x, width);
    link(doc, 'Image', entry.imageUrl, x, width);
  }
  // Long details may have gone on to the next page, where the thumbnail's bottom means nothing.
  doc.y = (doc.page === page ? Math.max(doc.y, top + size) : doc.y) + 10;
  rule(doc, 0.5);
  doc.y += 10;
}

/** The height of an entry's title, about three lines of details, and its links. */
function textHeightEstimate(doc: PDFKit.PDFDocument, entry: ResultEntry, width: number): number {
  const linkHeight = (url: string) => {
    doc.fontSize(9);
    return 12 + doc.heightOfString(url, { width }) + 3;
  };
  doc.fontSize(12);
  const title = doc.heightOfString(entry.title, { width });
  const links = entry.restricted ? 12 : linkHeight(entry.sourceUrl) + linkHeight(entry.imageUrl);
  return title + 3 * 12 + links;
}

/** The closing lines of a cover: restricted sources, confidentiality. */
function coverFooter(doc: PDFKit.PDFDocument, organizationName: string, restricted: boolean): void {
  const width = contentWidth(doc);
  if (restricted) {
    doc.moveDown(0.8);
    write(
      doc,
      'Viewing the original source of an image is available only to subscribers: the image and page addresses are left out of this report.',
      { weight: 'bold', size: 9, color: WARN },
      { x: MARGIN, y: doc.y, width },
    );
  }
  doc.moveDown(0.8);
  write(
    doc,
    `Confidential: prepared for ${organizationName}. Do not share outside your organization.`,
    { weight: 'regular', size: 9, color: MUTED },
    { x: MARGIN, y: doc.y, width },
  );
}
