import { useParams } from 'react-router';
import { WorkAccessNotice } from '../../components/work-access-notice.tsx';
import { useSession } from '../../lib/session.tsx';
import { SavedResultsView } from './saved-results-view.tsx';
import { SavedSearchList } from './saved-search-list.tsx';
import './saved-searches.css';

/** /saved-searches/{hashedId?}: the list, or one saved search's results. */
export function SavedSearchesPage() {
  const { hashedId } = useParams();
  const { session } = useSession();
  if (session && !session.user.access) return <WorkAccessNotice />;
  return hashedId ? (
    <SavedResultsView key={hashedId} hash={hashedId} context="user" />
  ) : (
    <SavedSearchList context="user" />
  );
}

/** /admin/saved-searches/{savedSearchHash?}: every organization's saved searches, read-only. */
export function AdminSavedSearchesPage() {
  const { savedSearchHash } = useParams();
  return savedSearchHash ? (
    <SavedResultsView key={savedSearchHash} hash={savedSearchHash} context="admin" />
  ) : (
    <SavedSearchList context="admin" />
  );
}
