import {
  SAVE_NAME_MAX_LENGTH,
  SAVE_NAME_TOO_LONG,
  SEARCH_MESSAGES,
  type SavedSearch,
} from '@osint/contract/search';
import { useState } from 'react';
import { Button } from '../../components/button.tsx';
import { Modal } from '../../components/modal.tsx';
import { TextArea, TextInput } from '../../components/text-field.tsx';
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
  const [name, setName] = useState(savedSearch.name);
  const [description, setDescription] = useState(savedSearch.description);
  const [saving, setSaving] = useState(false);
  const [failed, setFailed] = useState(false);
  const nameError =
    name.trim() === ''
      ? 'Name cannot be empty.'
      : name.trim().length > SAVE_NAME_MAX_LENGTH
        ? SAVE_NAME_TOO_LONG
        : undefined;

  const submit = async (event: React.FormEvent) => {
    event.preventDefault();
    if (nameError) return;
    setSaving(true);
    setFailed(false);
    try {
      await updateSavedSearch(savedSearch.id, name.trim(), description.trim());
      onSaved();
    } catch (error) {
      console.error('Updating the saved search failed', error);
      setFailed(true);
    } finally {
      setSaving(false);
    }
  };

  return (
    <Modal title="Edit saved search" onClose={onClose} size="sm">
      <form className="form" onSubmit={submit} noValidate>
        <TextInput
          label="Name"
          value={name}
          onChange={(event) => setName(event.target.value)}
          error={name === savedSearch.name ? undefined : nameError}
          autoComplete="off"
        />
        <TextArea
          label="Note (optional)"
          value={description}
          onChange={(event) => setDescription(event.target.value)}
          rows={4}
        />
        {failed && (
          <p className="field__error" role="alert">
            {SEARCH_MESSAGES.updateFailure}
          </p>
        )}
        <div className="modal__actions">
          <Button variant="secondary" onClick={onClose}>
            Cancel
          </Button>
          <Button type="submit" loading={saving} disabled={Boolean(nameError)}>
            Save
          </Button>
        </div>
      </form>
    </Modal>
  );
}
