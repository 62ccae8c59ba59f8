import { useQuery } from '@tanstack/react-query';
import { ALERT_POLL_MS, FACE_ALERT_KEYS, fetchAlerts } from './face-alerts-api.ts';

/** The menu badge: whether the organization has alerts nobody has looked at yet. */
export function useAlertBadge(enabled: boolean): boolean {
  const query = useQuery({
    queryKey: FACE_ALERT_KEYS.badge,
    queryFn: () => fetchAlerts({ pageNumber: 1, pageSize: 1, status: 'NEW' }),
    enabled,
    refetchInterval: ALERT_POLL_MS,
    retry: false,
  });
  return enabled && (query.data?.totalResultCount ?? 0) > 0;
}
