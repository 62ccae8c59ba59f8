import type { FaceAlertStatus, FaceAlertsResponse, FaceWatch } from '@osint/contract/face-alerts';
import { api } from '../../lib/api-client.ts';

export const FACE_ALERT_KEYS = {
  watches: ['face-watches'] as const,
  alerts: ['face-alerts'] as const,
  badge: ['face-alerts', 'badge'] as const,
};

/** How often the menu badge asks for new alerts. */
export const ALERT_POLL_MS = 60_000;

export function createWatch(body: {
  name: string;
  note?: string;
  searchHash?: string;
  faceHash?: string;
  faceImage?: string;
}): Promise<{ id: number }> {
  return api<{ id: number }>('/watches', { method: 'POST', body });
}

export function fetchWatches(): Promise<{ results: FaceWatch[] }> {
  return api<{ results: FaceWatch[] }>('/watches');
}

export function updateWatch(id: number, change: { muted?: boolean; endsAt?: string }): Promise<unknown> {
  return api(`/watches/${id}`, { method: 'PATCH', body: change });
}

export function endWatch(id: number): Promise<unknown> {
  return api(`/watches/${id}`, { method: 'DELETE' });
}

export function searchWatchedFace(id: number): Promise<{ searchHash: string }> {
  return api<{ searchHash: string }>(`/watches/${id}/search`, { method: 'POST' });
}

export function fetchAlerts(query: {
  pageNumber: number;
  pageSize: number;
  watchId?: number | undefined;
  status?: FaceAlertStatus | undefined;
}): Promise<FaceAlertsResponse> {
  return api<FaceAlertsResponse>('/alerts', { query });
}

export function markAlertsSeen(ids: number[]): Promise<{ updated: number }> {
  return api<{ updated: number }>('/alerts/seen', { method: 'POST', body: { ids } });
}

export function removeAlert(id: number): Promise<unknown> {
  return api(`/alerts/${id}`, { method: 'DELETE' });
}
