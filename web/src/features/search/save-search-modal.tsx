import {
  defaultSaveName,
  SAVE_NAME_MAX_LENGTH,
  SAVE_NAME_TOO_LONG,
  SEARCH_MESSAGES,
} from '@osint/contract/search';
import { NameDescriptionModal } from '../../components/name-description-modal.tsx';
import { saveSearch } from './search-api.ts';

/** Save search: name and note, then the in-progress confirmation (spec 001 §4). */
export function SaveSearchModal({
  searchHash,
  image,
  onClose,
}: {
  searchHash: string;
  image: string;
  onClose: () => void;
}) {
  return (
    <NameDescriptionModal
      title="Save search"
      initialName={defaultSaveName(new Date())}
      nameHint={`Optional, at most ${SAVE_NAME_MAX_LENGTH} characters`}
      validate={(name) => (name.length > SAVE_NAME_MAX_LENGTH ? SAVE_NAME_TOO_LONG : undefined)}
      descriptionLabel="Note (optional)"
      descriptionRows={4}
      failure={{ message: SEARCH_MESSAGES.saveFailure, log: 'Saving the search failed' }}
      submitLabel="Save"
      confirmation={{
        title: 'Saving in progress',
        lead: 'Your search result is being saved.',
        text: 'It appears under Saved Searches in a few minutes, with copies of the results that stay as they are now, even if the pages change.',
        link: { to: '/saved-searches', label: 'Go to Saved Searches' },
      }}
      onSubmit={(name, description) =>
        // A name left empty gets the default here, in the analyst's own time zone, not the server's.
        saveSearch({ name: name || defaultSaveName(new Date()), description, hash: searchHash, image })
      }
      onClose={onClose}
    />
  );
}
