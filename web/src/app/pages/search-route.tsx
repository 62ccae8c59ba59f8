import { ExtractorCard } from '../../features/data-extractor/extractor-card.tsx';
import { SearchPage } from '../../features/search/search-page.tsx';

/** /search: the search page with the AI data extractor card in its results view. */
export function SearchRoute() {
  return <SearchPage renderExtractorCard={(search) => <ExtractorCard {...search} />} />;
}
