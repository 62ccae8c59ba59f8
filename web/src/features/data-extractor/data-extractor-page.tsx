import { useParams } from 'react-router';
import { WorkAccessNotice } from '../../components/work-access-notice.tsx';
import { useSession } from '../../lib/session.tsx';
import { ExtractionDetail } from './extraction-detail.tsx';
import { ExtractionList } from './extraction-list.tsx';
import './data-extractor.css';

/** /data-extractor/{hashedId?}: the list, or one extraction's Extracted Data. */
export function DataExtractorPage() {
  const { hashedId } = useParams();
  const { session } = useSession();
  if (session && !session.user.access) return <WorkAccessNotice />;
  return hashedId ? (
    <ExtractionDetail key={hashedId} context="user" id={hashedId} />
  ) : (
    <ExtractionList context="user" />
  );
}

/** /admin/data-extractor: every organization's extractions, read-only. */
export function AdminDataExtractorPage() {
  return <ExtractionList context="admin" />;
}

/** /admin/data-extractor/{id}: one extraction by its numeric id, read-only. */
export function AdminExtractionPage() {
  const { id = '' } = useParams();
  return <ExtractionDetail key={id} context="admin" id={id} />;
}
