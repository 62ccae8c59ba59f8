/**
 * The seam between the extraction pipeline (services/extraction-pipeline.ts: loads pages, finds faces
 * seen on the same pages, stores what comes back) and the analysis (this folder: names, watch-lists, page
 * evidence, Wikipedia, optional LLM). The analysis reads text only; it never touches the database of
 * searches or the face index.
 */
import type { FlagEvidence } from '@osint/contract/data-extractor';

/** An image as it appears on a page: the texts around it name the person best. */
export interface ImageOnPage {
  imageUrl: string;
  alt: string;
  caption: string;
  nearbyText: string;
  /**
   * The page the caption was written on, when it is another page than the result's: a teaser's caption is
   * its article's, and evidence read from it must point there.
   */
  captionUrl?: string;
}

/** A crawled page (pages table), text already extracted from its HTML. */
export interface PageText {
  url: string;
  title: string;
  text: string;
}

/** One search result to analyse: the matched face's image on its page. */
/** Where a face stands among the faces of one photo, left to right. */
export type FacePosition = 'left' | 'centre' | 'right';

export interface ResultInput {
  /** The pipeline's own key for the result (its row id); echoed in the analysis. */
  key: string;
  page: PageText;
  image: ImageOnPage;
  similarity: number;
  crawledAt: Date;
  /**
   * Where the searched face stands among the faces of a photo of several people: a caption's "(left)" or
   * "(right)" then says which of the people it names is not this face. Undefined for a face alone.
   */
  facePosition?: FacePosition;
  /**
   * The page only shows the photo as a teaser (a home page or a listing: no caption here, while the
   * photo's own article page captions it). The page's other texts are about other stories, so only the
   * texts around the image name the people seen with the subject.
   */
  teaser?: boolean;
}

/**
 * Another face on a result's page, found by the face index on a different page where it may be named
 * ("seen with" by face). The analysis names it from that other page's image texts.
 */
export interface FaceSightingInput {
  /** The result whose page shows this face. */
  resultKey: string;
  /** The other page, where the same face appears. */
  page: PageText;
  image: ImageOnPage;
  /** The face on the result's page and its indexed image (the connections list shows that photo). */
  face: IndexedFaceRef;
}

/** An indexed face and the image it is in. */
export interface IndexedFaceRef {
  faceId: number;
  imageId: number;
}

export interface FlagSet {
  politician: boolean;
  sanctions: boolean;
  criminal: boolean;
}

/** A person seen with the subject: co-named on the page, or whose face shares the page. */
export interface ConnectionCandidate extends FlagSet {
  name: string;
  /** The person's face on the result's page, when the face index named it (null: named in the text). */
  face: IndexedFaceRef | null;
  /** The page that says who the person is. */
  aboutUrl: string | null;
  evidence: FlagEvidence[];
}

export interface ResultAnalysis extends FlagSet {
  key: string;
  /** The name the pages give this face; '' when none was found. */
  personName: string;
  /** A short description: the sentence of the page that says who the person is, or the caption. */
  personDesc: string;
  /** Other candidate names for this face, best first (the edit modal's choices). */
  alternativeNames: string[];
  /** Evidence for every raised flag (at least one entry per true flag). */
  evidence: FlagEvidence[];
  connections: ConnectionCandidate[];
}

export interface WikipediaSummary extends FlagSet {
  name: string;
  personDescription: string;
  url: string;
  /** The sentences of the article behind each flag (at least one per true flag). */
  evidence: FlagEvidence[];
}

export interface ExtractionAnalysis {
  results: ResultAnalysis[];
  /** The name most results support, after aliases and spelling variants are merged. */
  bestName: string | null;
  /** Distinct person names over all results. */
  namesFound: number;
  wikipedia: WikipediaSummary | null;
}

/** What a result's page and the watch-lists say about one name (a result renamed by hand). */
export interface NameAssessment extends FlagSet {
  evidence: FlagEvidence[];
  /** The sentence of the page that says who the named person is; '' when there is none. */
  personDesc: string;
}

export interface ExtractionAnalyzer {
  analyze(results: ResultInput[], sightings: FaceSightingInput[]): Promise<ExtractionAnalysis>;
  /** The flags and evidence of `personName` on the result's page and in the watch-lists. */
  assessName(result: ResultInput, personName: string): Promise<NameAssessment>;
}
