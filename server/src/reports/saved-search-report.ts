import PDFDocument from 'pdfkit';

/** Everything the saved-search report shows; the service gathers it, this file only lays it out. */
export interface SavedSearchReportData {
  organizationName: string;
  preparedBy: string;
  generatedAt: Date;
  savedSearch: {
    name: string;
    description: string;
    type: 'OSINT' | 'SOCIAL_MEDIA_SEARCH';
    createdAt: Date;
    /** JPEG of the searched face. */
    image: Buffer;
    resultCount: number;
  };
  /** Original sources are for subscribers: restricted reports leave the URLs out. */
  restricted: boolean;
  results: Array<{
    similarity: number;
    crawledAt: Date;
    sourceTitle: string;
    imageUrl: string;
    sourceUrl: string;
    thumbnail: Buffer | null;
  }>;
}

const TYPE_LABELS = { OSINT: 'Standard search', SOCIAL_MEDIA_SEARCH: 'Social media search' } as const;
const INK = '#0f172a';
const MUTED = '#475569';
const LINK = '#1d4ed8';
const RULE = '#dbe1ec';
const ACCENT = '#2563eb';
const MARGIN = 50;
const THUMB = 120;
const FOOTER_SPACE = 40;

const dateFormat = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'long', year: 'numeric' });
const dateTimeFormat = new Intl.DateTimeFormat('en-GB', {
  day: 'numeric',
  month: 'long',
  year: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  timeZone: 'UTC',
  timeZoneName: 'short',
});

/**
 * The built-in PDF fonts cover Windows-1252 only; other characters (a page title in Greek, say) are
 * replaced rather than printed as garbage.
 */
function printable(text: string): string {
  return text
    .normalize('NFC')
    .replace(/[^\u0020-\u007e\u00a0-\u00ff\u2013\u2014\u2018\u2019\u201c\u201d\u2022\u2026\u20ac]/g, '?');
}

/** The file name of a report: its saved search's name and the day, safe for every file system. */
export function savedSearchReportFileName(name: string, generatedAt: Date): string {
  const slug =
    name
      .toLowerCase()
      .normalize('NFKD')
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 40) || 'saved-search';
  return `saved-search-report-${slug}-${generatedAt.toISOString().slice(0, 10)}.pdf`;
}

/** Renders the PDF: a cover with the searched face, then one entry per result, page numbers on each page. */
export function renderSavedSearchReport(data: SavedSearchReportData): Promise<Buffer> {
  const doc = new PDFDocument({
    size: 'A4',
    margin: MARGIN,
    bufferPages: true,
    info: {
      Title: printable(`Saved search report: ${data.savedSearch.name}`),
      Author: printable(data.organizationName),
      Creator: 'OSINT Platform',
    },
  });
  const chunks: Buffer[] = [];
  doc.on('data', (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });

  cover(doc, data);
  if (data.results.length > 0) {
    doc.addPage();
    heading(doc, 'Results');
    data.results.forEach((result, index) => entry(doc, data, result, index));
  }
  pageNumbers(doc);
  doc.end();
  return done;
}

function contentWidth(doc: PDFKit.PDFDocument): number {
  return doc.page.width - MARGIN * 2;
}

function heading(doc: PDFKit.PDFDocument, text: string): void {
  doc.font('Helvetica-Bold').fontSize(16).fillColor(INK).text(text, MARGIN, MARGIN);
  doc.moveDown(0.6);
}

function cover(doc: PDFKit.PDFDocument, data: SavedSearchReportData): void {
  const width = contentWidth(doc);
  doc.rect(0, 0, doc.page.width, 8).fill(ACCENT);
  doc
    .font('Helvetica-Bold')
    .fontSize(10)
    .fillColor(ACCENT)
    .text('OSINT PLATFORM · SAVED SEARCH REPORT', MARGIN, MARGIN + 10, { characterSpacing: 1 });
  doc.moveDown(1);
  doc.font('Helvetica-Bold').fontSize(24).fillColor(INK).text(printable(data.savedSearch.name), { width });
  if (data.savedSearch.description) {
    doc.moveDown(0.4);
    doc
      .font('Helvetica')
      .fontSize(11)
      .fillColor(MUTED)
      .text(printable(data.savedSearch.description), { width });
  }
  doc.moveDown(1.2);

  const top = doc.y;
  const faceSize = 150;
  doc.save();
  doc.roundedRect(MARGIN, top, faceSize, faceSize, 8).clip();
  try {
    doc.image(data.savedSearch.image, MARGIN, top, {
      cover: [faceSize, faceSize],
      align: 'center',
      valign: 'center',
    });
  } catch {
    doc.rect(MARGIN, top, faceSize, faceSize).fill('#eef1f7');
  }
  doc.restore();
  doc.roundedRect(MARGIN, top, faceSize, faceSize, 8).lineWidth(1).stroke(RULE);
  doc
    .font('Helvetica')
    .fontSize(8)
    .fillColor(MUTED)
    .text('Searched face', MARGIN, top + faceSize + 4, { width: faceSize, align: 'center' });

  const facts: [string, string][] = [
    ['Organization', data.organizationName],
    ['Prepared by', data.preparedBy],
    ['Generated', dateTimeFormat.format(data.generatedAt)],
    ['Search type', TYPE_LABELS[data.savedSearch.type]],
    ['Saved on', dateFormat.format(data.savedSearch.createdAt)],
    ['Results in this report', `${data.results.length} of ${data.savedSearch.resultCount}`],
  ];
  const x = MARGIN + faceSize + 24;
  const factWidth = width - faceSize - 24;
  let y = top;
  for (const [label, value] of facts) {
    doc
      .font('Helvetica')
      .fontSize(8)
      .fillColor(MUTED)
      .text(label.toUpperCase(), x, y, { width: factWidth, characterSpacing: 0.5 });
    y = doc.y + 1;
    doc.font('Helvetica-Bold').fontSize(11).fillColor(INK).text(printable(value), x, y, { width: factWidth });
    y = doc.y + 8;
  }

  doc.y = Math.max(y, top + faceSize + 24) + 16;
  doc
    .moveTo(MARGIN, doc.y)
    .lineTo(MARGIN + width, doc.y)
    .lineWidth(1)
    .stroke(RULE);
  doc.moveDown(1);
  doc
    .font('Helvetica')
    .fontSize(9)
    .fillColor(MUTED)
    .text(
      "Similarity is the face engine's score for the face on each page against the searched face (100 % is an " +
        'identical face). "First indexed" is when our crawler first saw the image on that page. A match is a ' +
        'lead for an investigator to verify, not an identification.',
      MARGIN,
      doc.y,
      { width },
    );
  if (data.restricted) {
    doc.moveDown(0.8);
    doc
      .font('Helvetica-Bold')
      .fontSize(9)
      .fillColor('#b45309')
      .text(
        'Viewing the original source of an image is available only to subscribers: the image and page addresses are left out of this report.',
        { width },
      );
  }
  doc.moveDown(0.8);
  doc
    .font('Helvetica')
    .fontSize(9)
    .fillColor(MUTED)
    .text(
      `Confidential: prepared for ${printable(data.organizationName)}. Do not share outside your organization.`,
      { width },
    );
}

function entry(
  doc: PDFKit.PDFDocument,
  data: SavedSearchReportData,
  result: SavedSearchReportData['results'][number],
  index: number,
): void {
  const width = contentWidth(doc);
  const height = THUMB + 20;
  if (doc.y + height > doc.page.height - MARGIN - FOOTER_SPACE) {
    doc.addPage();
    doc.y = MARGIN;
  }
  const top = doc.y;
  if (result.thumbnail) {
    try {
      doc.image(result.thumbnail, MARGIN, top, { fit: [THUMB, THUMB], align: 'center', valign: 'center' });
    } catch {
      placeholder(doc, top);
    }
  } else {
    placeholder(doc, top);
  }
  doc.rect(MARGIN, top, THUMB, THUMB).lineWidth(0.5).stroke(RULE);

  const x = MARGIN + THUMB + 18;
  const textWidth = width - THUMB - 18;
  doc
    .font('Helvetica-Bold')
    .fontSize(12)
    .fillColor(INK)
    .text(`Result ${index + 1}`, x, top, { width: textWidth, continued: true });
  doc
    .font('Helvetica')
    .fillColor(ACCENT)
    .text(`   Similarity ${Math.round(result.similarity * 100)} %`);
  doc.moveDown(0.2);
  doc
    .font('Helvetica')
    .fontSize(9)
    .fillColor(MUTED)
    .text(`First indexed ${dateFormat.format(result.crawledAt)}`, x, doc.y, { width: textWidth });
  if (result.sourceTitle) {
    doc.moveDown(0.3);
    doc
      .font('Helvetica-Bold')
      .fontSize(10)
      .fillColor(INK)
      .text(printable(result.sourceTitle), x, doc.y, { width: textWidth, height: 28, ellipsis: true });
  }
  doc.moveDown(0.4);
  if (data.restricted) {
    doc
      .font('Helvetica-Oblique')
      .fontSize(9)
      .fillColor(MUTED)
      .text('Original sources: subscribers only.', x, doc.y, { width: textWidth });
  } else {
    link(doc, 'Source page', result.sourceUrl, x, textWidth);
    link(doc, 'Image', result.imageUrl, x, textWidth);
  }
  doc.y = Math.max(doc.y, top + THUMB) + 10;
  doc
    .moveTo(MARGIN, doc.y)
    .lineTo(MARGIN + width, doc.y)
    .lineWidth(0.5)
    .stroke(RULE);
  doc.y += 10;
}

function link(doc: PDFKit.PDFDocument, label: string, url: string, x: number, width: number): void {
  doc
    .font('Helvetica')
    .fontSize(8)
    .fillColor(MUTED)
    .text(label.toUpperCase(), x, doc.y, { width, characterSpacing: 0.5 });
  doc
    .font('Helvetica')
    .fontSize(9)
    .fillColor(LINK)
    .text(printable(url), x, doc.y, { width, link: url, underline: true });
  doc.moveDown(0.3);
}

function placeholder(doc: PDFKit.PDFDocument, top: number): void {
  doc.rect(MARGIN, top, THUMB, THUMB).fill('#eef1f7');
  doc
    .font('Helvetica')
    .fontSize(8)
    .fillColor(MUTED)
    .text('No thumbnail', MARGIN, top + THUMB / 2 - 4, { width: THUMB, align: 'center' });
}

function pageNumbers(doc: PDFKit.PDFDocument): void {
  const range = doc.bufferedPageRange();
  for (let i = range.start; i < range.start + range.count; i++) {
    doc.switchToPage(i);
    // Writing inside the bottom margin must not start a new page.
    const bottom = doc.page.margins.bottom;
    doc.page.margins.bottom = 0;
    doc
      .font('Helvetica')
      .fontSize(8)
      .fillColor(MUTED)
      .text(`Page ${i + 1} of ${range.count}`, MARGIN, doc.page.height - 32, {
        width: contentWidth(doc),
        align: 'right',
        lineBreak: false,
      });
    doc.page.margins.bottom = bottom;
  }
}
