import type { SearchType } from './search.ts';

// Face watches and alerts (issue 17): an organization watches a face and is told when a newly indexed
// image shows it.

export type FaceAlertStatus = 'NEW' | 'SEEN';

/** GET /api/watches */
export interface FaceWatch {
  id: number;
  name: string;
  note: string;
  type: SearchType;
  /** Alerts are still recorded; nobody is e-mailed. */
  muted: boolean;
  createdAt: string;
  endsAt: string;
  endedAt: string | null;
  /** URL of the watched face (null: none kept, or the watch ended). */
  image: string | null;
  alertCount: number;
  newAlertCount: number;
}

export interface FaceAlert {
  id: number;
  watchId: number;
  /** Null for restricted (trial) plans, as in search results. */
  sourceUrl: string | null;
  imageUrl: string | null;
  thumbnailUrl: string;
  sourceTitle: string;
  similarity: number;
  /** The face model that computed `similarity` (see SearchResult.scoreModel). */
  scoreModel: string | null;
  faceBox: { x: number; y: number; width: number; height: number };
  imageSize: { width: number; height: number } | null;
  createdAt: string;
  status: FaceAlertStatus;
  /** The same photo found elsewhere since. */
  copies: { thumbnailUrl: string; imageUrl: string | null; sourceUrl: string | null }[];
}

/** GET /api/alerts */
export interface FaceAlertsResponse {
  results: FaceAlert[];
  totalResultCount: number;
}

/** A watch ends after this many days unless renewed. */
export const DEFAULT_WATCH_DAYS = 90;

export const FACE_ALERT_MESSAGES = {
  watchStarted: 'Watching this face. You will be told by e-mail when it appears on a newly indexed page.',
  watchFailure: 'The face could not be watched. Please try again.',
} as const;
