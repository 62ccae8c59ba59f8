import {
  ACCENT,
  INK,
  MARGIN,
  MUTED,
  contentWidth,
  coverFace,
  coverFooter,
  coverKicker,
  dateFormat,
  dateTimeFormat,
  ensureSpace,
  facts,
  heading,
  link,
  pageNumbers,
  printable,
  reportFileName,
  rule,
  startDocument,
  thumbnail,
} from './pdf-parts.ts';

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
const THUMB = 120;

/** The file name of a report: its saved search's name and the day, safe for every file system. */
export function savedSearchReportFileName(name: string, generatedAt: Date): string {
  return reportFileName('saved-search-report', name, generatedAt, 'saved-search');
}

/** Renders the PDF: a cover with the searched face, then one entry per result, page numbers on each page. */
export function renderSavedSearchReport(data: SavedSearchReportData): Promise<Buffer> {
  const { doc, done } = startDocument({
    title: `Saved search report: ${data.savedSearch.name}`,
    author: data.organizationName,
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

function cover(doc: PDFKit.PDFDocument, data: SavedSearchReportData): void {
  const width = contentWidth(doc);
  coverKicker(doc, 'OSINT PLATFORM · SAVED SEARCH REPORT');
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
  coverFace(doc, data.savedSearch.image, top, faceSize);

  const pairs: [string, string][] = [
    ['Organization', data.organizationName],
    ['Prepared by', data.preparedBy],
    ['Generated', dateTimeFormat.format(data.generatedAt)],
    ['Search type', TYPE_LABELS[data.savedSearch.type]],
    ['Saved on', dateFormat.format(data.savedSearch.createdAt)],
    ['Results in this report', `${data.results.length} of ${data.savedSearch.resultCount}`],
  ];
  const x = MARGIN + faceSize + 24;
  const factWidth = width - faceSize - 24;
  const y = facts(doc, pairs, x, top, factWidth);

  doc.y = Math.max(y, top + faceSize + 24) + 16;
  rule(doc);
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
  coverFooter(doc, data.organizationName, data.restricted);
}

function entry(
  doc: PDFKit.PDFDocument,
  data: SavedSearchReportData,
  result: SavedSearchReportData['results'][number],
  index: number,
): void {
  const width = contentWidth(doc);
  ensureSpace(doc, THUMB + 20);
  const top = doc.y;
  thumbnail(doc, result.thumbnail, top, THUMB);

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
  rule(doc, 0.5);
  doc.y += 10;
}
