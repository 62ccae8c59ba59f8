import { useParams } from 'react-router';
import { ExtractorCard } from '../../features/data-extractor/extractor-card.tsx';
import { StoredSearchPage } from '../../features/search/stored-search-page.tsx';

/** /search/results/{searchHash}: a search's results with the AI data extractor card. */
export function SearchResultsRoute() {
  const { searchHash = '' } = useParams();
  return (
    <StoredSearchPage
      key={searchHash}
      searchHash={searchHash}
      renderExtractorCard={(search) => <ExtractorCard {...search} />}
    />
  );
}
