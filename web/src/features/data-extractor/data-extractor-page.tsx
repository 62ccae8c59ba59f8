import { useParams } from 'react-router';
import { ExtractionDetail } from './extraction-detail.tsx';
import { ExtractionList } from './extraction-list.tsx';
import './data-extractor.css';

/** /data-extractor/{hashedId?}: the list, or one extraction's Extracted Data. */
export function DataExtractorPage() {
  const { hashedId } = useParams();
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
