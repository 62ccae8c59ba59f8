import {
  SAVE_NAME_MAX_LENGTH,
  SAVE_NAME_TOO_LONG,
  SEARCH_MESSAGES,
  type SavedSearch,
} from '@osint/contract/search';
import { NameDescriptionModal } from '../../components/name-description-modal.tsx';
import { updateSavedSearch } from './saved-searches-api.ts';

/** Edit name and note; Save is disabled while the name is empty or too long (spec 001 §5). */
export function EditSavedSearchModal({
  savedSearch,
  onClose,
  onSaved,
}: {
  savedSearch: SavedSearch;
  onClose: () => void;
  onSaved: () => void;
}) {
  return (
    <NameDescriptionModal
      title="Edit saved search"
      initialName={savedSearch.name}
      initialDescription={savedSearch.description}
      validate={(name) =>
        name.trim() === ''
          ? 'Name cannot be empty.'
          : name.trim().length > SAVE_NAME_MAX_LENGTH
            ? SAVE_NAME_TOO_LONG
            : undefined
      }
      descriptionLabel="Note (optional)"
      descriptionRows={4}
      failure={{ message: SEARCH_MESSAGES.updateFailure, log: 'Updating the saved search failed' }}
      submitLabel="Save"
      onSubmit={async (name, description) => {
        await updateSavedSearch(savedSearch.id, name, description);
        onSaved();
      }}
      onClose={onClose}
    />
  );
}
