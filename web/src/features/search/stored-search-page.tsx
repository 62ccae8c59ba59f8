import { useQuery, useQueryClient } from '@tanstack/react-query';
import type { SearchResult, StoredSearchResponse } from '@osint/contract/search';
import { useEffect, useState, type ReactNode } from 'react';
import { Link, useNavigate } from 'react-router';
import { LoadingPlaceholder } from '../../components/loading-placeholder.tsx';
import type { ResultSort } from '../../components/results/result-grouping.ts';
import { WorkAccessNotice } from '../../components/work-access-notice.tsx';
import { ApiError } from '../../lib/api-client.ts';
import { useSession } from '../../lib/session.tsx';
import { fetchSearch, imageAsBase64 } from './search-api.ts';
import { SearchResults } from './search-results.tsx';
import './search.css';

export interface StoredSearchPageProps {
  searchHash: string;
  /**
   * Slot for the AI data extractor card of the results view. The data-extractor feature renders it
   * (the app composes the two); until then nothing is shown here.
   */
  renderExtractorCard?: ((search: { searchHash: string; image: string }) => ReactNode) | undefined;
}

/**
 * /search/results/{searchHash}: a search of the organization, loaded from the server, so that a reload,
 * Back, a bookmark or a colleague's link shows the same results. Removed results stay removed.
 */
export function StoredSearchPage({ searchHash, renderExtractorCard }: StoredSearchPageProps) {
  const { session } = useSession();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const query = useQuery({
    queryKey: ['search', searchHash],
    queryFn: () => fetchSearch(searchHash),
    retry: (count, error) => !(error instanceof ApiError && error.status < 500) && count < 2,
    // Removals are written into the cached search (below); a refetch in the background would bring
    // nothing new.
    staleTime: Infinity,
  });
  const [sort, setSort] = useState<ResultSort>('default');
  const [grouping, setGrouping] = useState(false);
  // Saving and extracting send the searched face as base64, as a fresh search does.
  const [faceBase64, setFaceBase64] = useState('');
  // The address whose download failed: saving and extracting are unavailable, and the page says why.
  const [faceFailedFor, setFaceFailedFor] = useState<string>();
  const imageUrl = query.data?.image;
  useEffect(() => {
    if (!imageUrl) return;
    let cancelled = false;
    imageAsBase64(imageUrl)
      .then((base64) => !cancelled && setFaceBase64(base64))
      .catch((error: unknown) => {
        console.error('Loading the searched face failed', error);
        if (!cancelled) setFaceFailedFor(imageUrl);
      });
    return () => {
      cancelled = true;
    };
  }, [imageUrl]);

  if (!session) return null;
  if (!session.user.access) return <WorkAccessNotice />;
  if (query.isPending) return <LoadingPlaceholder />;
  if (query.isError || !query.data) {
    const status = query.error instanceof ApiError ? query.error.status : 0;
    const [title, text] =
      status === 404
        ? ['Search not found', 'It may have been deleted, or it belongs to another organization.']
        : ['Something went wrong', 'The search could not be loaded. Please try again later.'];
    return (
      <section className="container page">
        <div className="card search-access" role="alert">
          <h1 className="search-access__title">{title}</h1>
          <p>{text}</p>
          <div className="search-access__links">
            <Link className="btn btn-primary" to="/search">
              New search
            </Link>
            <Link className="btn btn-secondary" to="/search/history">
              Search history
            </Link>
          </div>
        </div>
      </section>
    );
  }
  const response = query.data;
  const results: SearchResult[] = response.results;
  // The search kept no face, or its picture could not be downloaded.
  const faceUnavailable = !faceBase64 && (!response.image || faceFailedFor === response.image);
  return (
    <SearchResults
      response={response}
      results={results}
      searchType={response.type}
      image={faceBase64}
      imageUrl={response.image}
      addedFaceCount={response.addedFaceCount}
      otherFaceCount={response.otherFaceCount}
      sort={sort}
      grouping={grouping}
      restricted={session.user.restricted}
      onSort={setSort}
      onGrouping={setGrouping}
      onRemoved={(id) =>
        // Into the cache, not only this page's state: reopened from the history, the search shows the
        // removal and the lowered count, as the server keeps them.
        queryClient.setQueryData<StoredSearchResponse>(
          ['search', searchHash],
          (cached) =>
            cached && {
              ...cached,
              results: cached.results.filter((result) => result.id !== id),
              numberOfResults: Math.max(0, cached.numberOfResults - 1),
            },
        )
      }
      onNewSearch={() => navigate('/search')}
      extractorCard={
        faceUnavailable ? (
          <p className="card search-face-unavailable" role="note">
            The searched face’s picture could not be loaded, so this search cannot be saved or used for a data
            extraction. Reload the page to try again.
          </p>
        ) : (
          // An extraction is started with the searched face: the card waits until it is loaded.
          (faceBase64 && renderExtractorCard?.({ searchHash: response.searchHash, image: faceBase64 })) ||
          null
        )
      }
    />
  );
}
