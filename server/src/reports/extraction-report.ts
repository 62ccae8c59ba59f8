import { formatDate, formatDateTime } from '@osint/contract/dates';
import { matchScoreLegend } from '@osint/contract/match-score';
import type {
  ExtractionFlag,
  FlagEvidence,
  NameStatistic,
  WikipediaResult,
} from '@osint/contract/data-extractor';
import { EVIDENCE_SOURCE_LABELS } from '@osint/contract/data-extractor';
import {
  INK,
  LINK,
  MARGIN,
  MUTED,
  REPORT_TIME_ZONE,
  WARN,
  contentWidth,
  cover,
  ensureSpace,
  heading,
  link,
  pageNumbers,
  reportFileName,
  resultEntry,
  type MatchedFace,
  rule,
  startDocument,
} from './pdf-parts.ts';
import { isolated, write } from './pdf-text.ts';

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
    scoreModel: string | null;
    crawledAt: Date;
    sourceTitle: string;
    sourceUrl: string;
    imageUrl: string;
    thumbnail: Buffer | null;
    /** The matched face, outlined on the thumbnail (results copied before boxes were kept have none). */
    face: MatchedFace | null;
    /** Why each of the result's flags was raised: printed under the result. */
    evidence: FlagEvidence[];
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

export function extractionReportFileName(name: string, generatedAt: Date): string {
  return reportFileName('data-extractor-report', name, generatedAt, 'extraction');
}

type Flags = Record<ExtractionFlag, boolean>;

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
    write(
      doc,
      'The pages of these results do not name the person.',
      { weight: 'regular', size: 10, color: MUTED },
      { x: MARGIN, y: doc.y, width: contentWidth(doc) },
    );
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
      ['Generated', formatDateTime(data.generatedAt, REPORT_TIME_ZONE)],
      ['Extraction started', formatDate(data.extraction.createdAt, REPORT_TIME_ZONE)],
      ['Most likely name', data.extraction.bestName ?? 'No name found'],
      ['Results in this report', `${data.results.length} of ${data.extraction.resultCount}`],
    ],
    explanation:
      'The AI data extractor read the pages where the searched face was found. Names come from the texts ' +
      'around each image; flags come from watch-lists and from sentences of the pages, each shown with its ' +
      'evidence. "Seen with" lists persons named next to the subject or whose faces share their pages. ' +
      `${matchScoreLegend(data.results.map((result) => result.scoreModel))} Every finding is a lead for an investigator to verify, not an identification.`,
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
  write(doc, name.name, { weight: 'bold', size: 13, color: INK }, { x: MARGIN, y: doc.y, width });
  const counts = [
    `${name.linkCount} ${name.linkCount === 1 ? 'link' : 'links'}`,
    `politician ${name.politicianCount}`,
    `sanctions ${name.sanctionsCount}`,
    `criminal ${name.criminalCount}`,
    `seen with ${name.seenWithCount}`,
  ].join('  ·  ');
  write(doc, counts, { weight: 'regular', size: 9, color: MUTED }, { x: MARGIN, y: doc.y, width });
  doc.moveDown(0.3);
  const raised = {
    politician: name.politicianCount > 0,
    sanctions: name.sanctionsCount > 0,
    criminal: name.criminalCount > 0,
  };
  flagEvidence(doc, data, raised, name.evidence, {
    x: MARGIN + 10,
    width: width - 10,
    size: 10,
    maxPerFlag: MAX_EVIDENCE_PER_FLAG,
  });
  if (name.seenWith.length > 0) {
    write(
      doc,
      `Seen with: ${name.seenWith.join(', ')}`,
      { weight: 'regular', size: 9, color: MUTED },
      { x: MARGIN + 10, y: doc.y, width: width - 10 },
    );
  }
  doc.moveDown(0.6);
  rule(doc, 0.5);
  doc.moveDown(0.6);
}

function wikipediaSection(doc: PDFKit.PDFDocument, data: ExtractionReportData, wiki: WikipediaResult): void {
  const width = contentWidth(doc);
  ensureSpace(doc, 90);
  doc.moveDown(0.4);
  write(doc, 'Wikipedia', { weight: 'bold', size: 14, color: INK }, { x: MARGIN, y: doc.y, width });
  doc.moveDown(0.2);
  write(doc, wiki.name, { weight: 'bold', size: 11, color: INK }, { x: MARGIN, y: doc.y, width });
  if (wiki.personDescription) {
    write(
      doc,
      wiki.personDescription,
      { weight: 'regular', size: 9, color: INK },
      { x: MARGIN, y: doc.y, width },
    );
  }
  doc.moveDown(0.2);
  flagEvidence(doc, data, wiki, wiki.evidence, { x: MARGIN, width, size: 9 });
  doc.moveDown(0.1);
  if (wiki.url) link(doc, 'Article', wiki.url, MARGIN, width);
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
    // The name isolated: a Hebrew or Arabic name must not carry the number over to its right.
    title: `${index + 1}. ${isolated(result.personName || 'Unnamed')}`,
    similarity: result.similarity,
    scoreModel: result.scoreModel,
    sourceUrl: result.sourceUrl,
    imageUrl: result.imageUrl,
    restricted: data.restricted,
  };
  resultEntry(doc, frame, (x, width) => {
    if (result.personDesc) {
      write(
        doc,
        result.personDesc,
        { weight: 'regular', size: 9, color: INK },
        { x, y: doc.y, width, height: 36, ellipsis: true },
      );
    }
    write(
      doc,
      `First indexed ${formatDate(result.crawledAt, REPORT_TIME_ZONE)}${result.sourceTitle ? ` · ${result.sourceTitle}` : ''}`,
      { weight: 'regular', size: 8, color: MUTED },
      { x, y: doc.y, width, height: 22, ellipsis: true },
    );
    if (result.seenWith.length > 0) {
      write(
        doc,
        `Seen with: ${result.seenWith.join(', ')}`,
        { weight: 'regular', size: 8, color: MUTED },
        { x, y: doc.y, width },
      );
    }
    // Each flag of the result with the sentences or list entries behind it, not only the name's.
    flagEvidence(doc, data, result, result.evidence, { x, width, size: 9 });
    doc.moveDown(0.3);
  });
}

/**
 * Each raised flag, then its evidence: source, sentence or list entry, and the page (left out of
 * restricted reports), at most `maxPerFlag` lines a flag. A flag stored without evidence says so rather
 * than standing alone.
 */
function flagEvidence(
  doc: PDFKit.PDFDocument,
  data: ExtractionReportData,
  flags: Flags,
  evidence: readonly FlagEvidence[],
  layout: { x: number; width: number; size: number; maxPerFlag?: number },
): void {
  const { x, width, size } = layout;
  const itemX = x + 10;
  const itemWidth = width - 10;
  for (const flag of Object.keys(FLAG_LABELS) as ExtractionFlag[]) {
    const items = evidence.filter((e) => e.flag === flag);
    if (!flags[flag] && items.length === 0) continue;
    ensureSpace(doc, 3 * size);
    write(doc, FLAG_LABELS[flag], { weight: 'bold', size, color: WARN }, { x, y: doc.y, width });
    if (items.length === 0) {
      write(
        doc,
        'No evidence was recorded for this flag.',
        { weight: 'italic', size: size - 1, color: MUTED },
        { x: itemX, y: doc.y, width: itemWidth },
      );
    }
    const shown = items.slice(0, layout.maxPerFlag ?? items.length);
    for (const item of shown) {
      ensureSpace(doc, 3 * size);
      write(
        doc,
        `• ${EVIDENCE_SOURCE_LABELS[item.source]}: ${isolated(item.text)}`,
        { weight: 'regular', size: size - 1, color: INK },
        { x: itemX, y: doc.y, width: itemWidth },
      );
      if (item.url && !data.restricted) {
        write(
          doc,
          item.url,
          { weight: 'regular', size: size - 2, color: LINK },
          { x: itemX + 10, y: doc.y, width: itemWidth - 10, link: item.url, underline: true },
        );
      }
    }
    if (items.length > shown.length) {
      write(
        doc,
        `and ${items.length - shown.length} more`,
        { weight: 'italic', size: size - 1, color: MUTED },
        { x: itemX, y: doc.y, width: itemWidth },
      );
    }
    doc.moveDown(0.2);
  }
}
