import { EXTRACTION_POLL_MS } from '@osint/contract/data-extractor';
import { useQuery } from '@tanstack/react-query';
import { EXTRACTOR_KEYS, fetchExtractions } from './data-extractor-api.ts';

/**
 * The menu alert (spec 001 §4): true while the organization has done extractions nobody has opened yet
 * (checkedStatus=NEW). Checked every 180 s, and again when the list or a detail page says it changed.
 */
export function useExtractionAlert(enabled: boolean): boolean {
  const query = useQuery({
    queryKey: EXTRACTOR_KEYS.alert,
    queryFn: () => fetchExtractions('user', { pageNumber: 1, pageSize: 1, checkedStatus: 'NEW' }),
    enabled,
    refetchInterval: EXTRACTION_POLL_MS,
    retry: false,
  });
  return enabled && (query.data?.totalResultCount ?? 0) > 0;
}
