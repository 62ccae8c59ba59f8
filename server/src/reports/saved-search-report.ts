import { formatDate, formatDateTime } from '@osint/contract/dates';
import { matchScoreLegend } from '@osint/contract/match-score';
import { searchedWithSummary } from '@osint/contract/search';
import {
  type MatchedFace,
  INK,
  MUTED,
  REPORT_TIME_ZONE,
  cover,
  heading,
  pageNumbers,
  reportFileName,
  resultEntry,
  startDocument,
} from './pdf-parts.ts';
import { write } from './pdf-text.ts';

/**
 * Everything a search report shows, for a saved search or for a search that was not saved (its
 * history entry); the services gather it, this file only lays it out.
 */
export interface SavedSearchReportData {
  organizationName: string;
  preparedBy: string;
  generatedAt: Date;
  savedSearch: {
    /** False for a search reported from its results page without being saved. */
    saved: boolean;
    name: string;
    description: string;
    type: 'OSINT' | 'SOCIAL_MEDIA_SEARCH';
    /** When it was saved, or run (not saved). */
    createdAt: Date;
    /** JPEG of the searched face (a search run without it has none: the cover shows an empty frame). */
    image: Buffer | null;
    resultCount: number;
    /** Results of earlier searches the analyst confirmed and searched together with the face (search again). */
    addedFaceCount?: number;
    /** Other uploaded faces of the person searched together with the face (other photos). */
    otherFaceCount?: number;
  };
  /** Original sources are for subscribers: restricted reports leave the URLs out. */
  restricted: boolean;
  results: Array<{
    similarity: number;
    scoreModel: string | null;
    crawledAt: Date;
    sourceTitle: string;
    imageUrl: string;
    sourceUrl: string;
    thumbnail: Buffer | null;
    /** The matched face, outlined on the thumbnail (results saved before boxes were kept have none). */
    face: MatchedFace | null;
  }>;
}

const TYPE_LABELS = { OSINT: 'Standard search', SOCIAL_MEDIA_SEARCH: 'Social media search' } as const;
const THUMB = 120;

/** The file name of a report: its saved search's name and the day, safe for every file system. */
export function savedSearchReportFileName(name: string, generatedAt: Date): string {
  return reportFileName('saved-search-report', name, generatedAt, 'saved-search');
}

/** The file name of a report of a search that was not saved. */
export function searchReportFileName(name: string, generatedAt: Date): string {
  return reportFileName('search-report', name, generatedAt, 'search');
}

/** Renders the PDF: a cover with the searched face, then one entry per result, page numbers on each page. */
export function renderSavedSearchReport(data: SavedSearchReportData): Promise<Buffer> {
  const { doc, done } = startDocument({
    title: `${data.savedSearch.saved ? 'Saved search' : 'Search'} report: ${data.savedSearch.name}`,
    author: data.organizationName,
  });

  savedSearchCover(doc, data);
  if (data.results.length > 0) {
    doc.addPage();
    heading(doc, 'Results');
    data.results.forEach((result, index) => entry(doc, data, result, index));
  }
  pageNumbers(doc);
  doc.end();
  return done;
}

function savedSearchCover(doc: PDFKit.PDFDocument, data: SavedSearchReportData): void {
  cover(doc, {
    kicker: data.savedSearch.saved
      ? 'OSINT PLATFORM · SAVED SEARCH REPORT'
      : 'OSINT PLATFORM · SEARCH REPORT',
    title: data.savedSearch.name,
    description: data.savedSearch.description,
    image: data.savedSearch.image,
    facts: [
      ['Organization', data.organizationName],
      ['Prepared by', data.preparedBy],
      ['Generated', formatDateTime(data.generatedAt, REPORT_TIME_ZONE)],
      ['Search type', TYPE_LABELS[data.savedSearch.type]],
      ...searchedWith(data.savedSearch),
      [
        data.savedSearch.saved ? 'Saved on' : 'Searched on',
        formatDate(data.savedSearch.createdAt, REPORT_TIME_ZONE),
      ],
      ['Results in this report', `${data.results.length} of ${data.savedSearch.resultCount}`],
    ],
    explanation:
      `${matchScoreLegend(data.results.map((result) => result.scoreModel))} "First indexed" is when our crawler first saw the image on that page. A ` +
      'match is a lead for an investigator to verify, not an identification.',
    organizationName: data.organizationName,
    restricted: data.restricted,
  });
}

/** Says what the search looked for when it was more than the face shown (other photos, results added). */
function searchedWith(search: { addedFaceCount?: number; otherFaceCount?: number }): [string, string][] {
  const summary = searchedWithSummary(
    { addedFaceCount: search.addedFaceCount ?? 0, otherFaceCount: search.otherFaceCount ?? 0 },
    { face: 'The face shown', results: 'the analyst confirmed as this person' },
  );
  return summary ? [['Searched with', summary]] : [];
}

function entry(
  doc: PDFKit.PDFDocument,
  data: SavedSearchReportData,
  result: SavedSearchReportData['results'][number],
  index: number,
): void {
  const frame = {
    thumbnail: result.thumbnail,
    face: result.face,
    thumbSize: THUMB,
    title: `Result ${index + 1}`,
    similarity: result.similarity,
    scoreModel: result.scoreModel,
    sourceUrl: result.sourceUrl,
    imageUrl: result.imageUrl,
    restricted: data.restricted,
  };
  resultEntry(doc, frame, (x, width) => {
    doc.moveDown(0.2);
    write(
      doc,
      `First indexed ${formatDate(result.crawledAt, REPORT_TIME_ZONE)}`,
      { weight: 'regular', size: 9, color: MUTED },
      { x, y: doc.y, width },
    );
    if (result.sourceTitle) {
      doc.moveDown(0.3);
      write(
        doc,
        result.sourceTitle,
        { weight: 'bold', size: 10, color: INK },
        { x, y: doc.y, width, height: 28, ellipsis: true },
      );
    }
    doc.moveDown(0.4);
  });
}
