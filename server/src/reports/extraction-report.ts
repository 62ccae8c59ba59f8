import { MATCH_SCORE_EXPLANATION } from '@osint/contract/match-score';
import type {
  ExtractionFlag,
  FlagEvidence,
  NameStatistic,
  WikipediaResult,
} from '@osint/contract/data-extractor';
import {
  INK,
  LINK,
  MARGIN,
  MUTED,
  WARN,
  contentWidth,
  cover,
  dateFormat,
  dateTimeFormat,
  ensureSpace,
  heading,
  link,
  pageNumbers,
  printable,
  reportFileName,
  resultEntry,
  type MatchedFace,
  rule,
  startDocument,
} from './pdf-parts.ts';

/** Everything the extraction report shows; the service gathers it, this file only lays it out. */
export interface ExtractionReportData {
  organizationName: string;
  preparedBy: string;
  generatedAt: Date;
  /** Original sources are for subscribers: restricted reports leave the URLs out. */
  restricted: boolean;
  extraction: {
    name: string;
    description: string;
    createdAt: Date;
    /** JPEG of the searched face. */
    image: Buffer | null;
    resultCount: number;
    bestName: string | null;
  };
  /** Per person name over the results in the report, most links first, with the evidence of its flags. */
  names: Array<NameStatistic & { evidence: FlagEvidence[]; seenWith: string[] }>;
  results: Array<{
    personName: string;
    personDesc: string;
    politician: boolean;
    sanctions: boolean;
    criminal: boolean;
    similarity: number;
    crawledAt: Date;
    sourceTitle: string;
    sourceUrl: string;
    imageUrl: string;
    thumbnail: Buffer | null;
    /** The matched face, outlined on the thumbnail (results copied before boxes were kept have none). */
    face: MatchedFace | null;
    seenWith: string[];
  }>;
  wikipedia: WikipediaResult | null;
}

const THUMB = 100;
/** Evidence lines per flag and name: the same flag on hundreds of results must not fill pages. */
const MAX_EVIDENCE_PER_FLAG = 8;
const FLAG_LABELS: Record<ExtractionFlag, string> = {
  politician: 'Politically exposed person',
  sanctions: 'Sanctions',
  criminal: 'Criminal record or wanted',
};
const SOURCE_LABELS: Record<FlagEvidence['source'], string> = {
  watchlist: 'Watch-list',
  page: 'Page',
  llm: 'Language model',
};

export function extractionReportFileName(name: string, generatedAt: Date): string {
  return reportFileName('data-extractor-report', name, generatedAt, 'extraction');
}

/** The flags raised, as labels ("Sanctions, Criminal record or wanted"), or '' when none. */
function flagList(flags: { politician: boolean; sanctions: boolean; criminal: boolean }): string {
  return (Object.keys(FLAG_LABELS) as ExtractionFlag[])
    .filter((flag) => flags[flag])
    .map((flag) => FLAG_LABELS[flag])
    .join(', ');
}

/**
 * Renders the PDF: a cover with the searched face, the names found with their flags and evidence, the
 * Wikipedia result when asked for, then one entry per result; page numbers on each page.
 */
export function renderExtractionReport(data: ExtractionReportData): Promise<Buffer> {
  const { doc, done } = startDocument({
    title: `AI data extraction report: ${data.extraction.name}`,
    author: data.organizationName,
  });
  extractionCover(doc, data);
  doc.addPage();
  heading(doc, 'Names found');
  if (data.names.length === 0) {
    doc
      .font('Helvetica')
      .fontSize(10)
      .fillColor(MUTED)
      .text('The pages of these results do not name the person.', MARGIN, doc.y, {
        width: contentWidth(doc),
      });
  }
  for (const name of data.names) nameSection(doc, data, name);
  if (data.wikipedia) wikipediaSection(doc, data, data.wikipedia);
  if (data.results.length > 0) {
    doc.addPage();
    heading(doc, 'Results');
    data.results.forEach((result, index) => entry(doc, data, result, index));
  }
  pageNumbers(doc);
  doc.end();
  return done;
}

function extractionCover(doc: PDFKit.PDFDocument, data: ExtractionReportData): void {
  cover(doc, {
    kicker: 'OSINT PLATFORM · AI DATA EXTRACTION REPORT',
    title: data.extraction.name,
    description: data.extraction.description,
    image: data.extraction.image,
    facts: [
      ['Organization', data.organizationName],
      ['Prepared by', data.preparedBy],
      ['Generated', dateTimeFormat.format(data.generatedAt)],
      ['Extraction started', dateFormat.format(data.extraction.createdAt)],
      ['Most likely name', data.extraction.bestName ?? 'No name found'],
      ['Results in this report', `${data.results.length} of ${data.extraction.resultCount}`],
    ],
    explanation:
      'The AI data extractor read the pages where the searched face was found. Names come from the texts ' +
      'around each image; flags come from watch-lists and from sentences of the pages, each shown with its ' +
      'evidence. "Seen with" lists persons named next to the subject or whose faces share their pages. ' +
      `${MATCH_SCORE_EXPLANATION} Every finding is a lead for an investigator to verify, not an identification.`,
    organizationName: data.organizationName,
    restricted: data.restricted,
  });
}

function nameSection(
  doc: PDFKit.PDFDocument,
  data: ExtractionReportData,
  name: ExtractionReportData['names'][number],
): void {
  const width = contentWidth(doc);
  ensureSpace(doc, 70);
  doc.font('Helvetica-Bold').fontSize(13).fillColor(INK).text(printable(name.name), MARGIN, doc.y, { width });
  const counts = [
    `${name.linkCount} ${name.linkCount === 1 ? 'link' : 'links'}`,
    `politician ${name.politicianCount}`,
    `sanctions ${name.sanctionsCount}`,
    `criminal ${name.criminalCount}`,
    `seen with ${name.seenWithCount}`,
  ].join('  ·  ');
  doc.font('Helvetica').fontSize(9).fillColor(MUTED).text(counts, MARGIN, doc.y, { width });
  doc.moveDown(0.3);
  for (const flag of Object.keys(FLAG_LABELS) as ExtractionFlag[]) {
    const evidence = name.evidence.filter((e) => e.flag === flag);
    if (evidence.length === 0) continue;
    ensureSpace(doc, 40);
    doc
      .font('Helvetica-Bold')
      .fontSize(10)
      .fillColor(WARN)
      .text(FLAG_LABELS[flag], MARGIN + 10, doc.y, {
        width: width - 10,
      });
    for (const item of evidence.slice(0, MAX_EVIDENCE_PER_FLAG)) {
      ensureSpace(doc, 30);
      doc
        .font('Helvetica')
        .fontSize(9)
        .fillColor(INK)
        .text(`• ${SOURCE_LABELS[item.source]}: ${printable(item.text)}`, MARGIN + 20, doc.y, {
          width: width - 20,
        });
      if (item.url && !data.restricted) {
        doc
          .font('Helvetica')
          .fontSize(8)
          .fillColor(LINK)
          .text(printable(item.url), MARGIN + 30, doc.y, {
            width: width - 30,
            link: item.url,
            underline: true,
          });
      }
      doc.moveDown(0.2);
    }
    if (evidence.length > MAX_EVIDENCE_PER_FLAG) {
      doc
        .font('Helvetica-Oblique')
        .fontSize(9)
        .fillColor(MUTED)
        .text(`and ${evidence.length - MAX_EVIDENCE_PER_FLAG} more`, MARGIN + 20, doc.y, {
          width: width - 20,
        });
      doc.moveDown(0.2);
    }
  }
  if (name.seenWith.length > 0) {
    doc
      .font('Helvetica')
      .fontSize(9)
      .fillColor(MUTED)
      .text(`Seen with: ${printable(name.seenWith.join(', '))}`, MARGIN + 10, doc.y, { width: width - 10 });
  }
  doc.moveDown(0.6);
  rule(doc, 0.5);
  doc.moveDown(0.6);
}

function wikipediaSection(doc: PDFKit.PDFDocument, data: ExtractionReportData, wiki: WikipediaResult): void {
  const width = contentWidth(doc);
  ensureSpace(doc, 90);
  doc.moveDown(0.4);
  doc.font('Helvetica-Bold').fontSize(14).fillColor(INK).text('Wikipedia', MARGIN, doc.y, { width });
  doc.moveDown(0.2);
  doc.font('Helvetica-Bold').fontSize(11).fillColor(INK).text(printable(wiki.name), MARGIN, doc.y, { width });
  if (wiki.personDescription) {
    doc
      .font('Helvetica')
      .fontSize(9)
      .fillColor(INK)
      .text(printable(wiki.personDescription), MARGIN, doc.y, { width });
  }
  const flags = flagList(wiki);
  if (flags) doc.font('Helvetica-Bold').fontSize(9).fillColor(WARN).text(flags, MARGIN, doc.y, { width });
  doc.moveDown(0.3);
  if (!data.restricted) link(doc, 'Article', wiki.url, MARGIN, width);
  doc.moveDown(0.6);
}

function entry(
  doc: PDFKit.PDFDocument,
  data: ExtractionReportData,
  result: ExtractionReportData['results'][number],
  index: number,
): void {
  const frame = {
    thumbnail: result.thumbnail,
    face: result.face,
    thumbSize: THUMB,
    title: `${index + 1}. ${printable(result.personName || 'Unnamed')}`,
    similarity: result.similarity,
    sourceUrl: result.sourceUrl,
    imageUrl: result.imageUrl,
    restricted: data.restricted,
  };
  resultEntry(doc, frame, (x, width) => {
    const flags = flagList(result);
    if (flags) doc.font('Helvetica-Bold').fontSize(9).fillColor(WARN).text(flags, x, doc.y, { width });
    if (result.personDesc) {
      doc
        .font('Helvetica')
        .fontSize(9)
        .fillColor(INK)
        .text(printable(result.personDesc), x, doc.y, { width, height: 36, ellipsis: true });
    }
    doc
      .font('Helvetica')
      .fontSize(8)
      .fillColor(MUTED)
      .text(
        `First indexed ${dateFormat.format(result.crawledAt)}${result.sourceTitle ? ` · ${printable(result.sourceTitle)}` : ''}`,
        x,
        doc.y,
        { width, height: 22, ellipsis: true },
      );
    if (result.seenWith.length > 0) {
      doc
        .font('Helvetica')
        .fontSize(8)
        .fillColor(MUTED)
        .text(`Seen with: ${printable(result.seenWith.join(', '))}`, x, doc.y, { width });
    }
    doc.moveDown(0.3);
  });
}
