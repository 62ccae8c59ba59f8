import {
  defaultSaveName,
  SAVE_NAME_MAX_LENGTH,
  SAVE_NAME_TOO_LONG,
  SEARCH_MESSAGES,
} from '@osint/contract/search';
import { useState } from 'react';
import { Link } from 'react-router';
import { Button } from '../../components/button.tsx';
import { Modal } from '../../components/modal.tsx';
import { TextArea, TextInput } from '../../components/text-field.tsx';
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
  const [name, setName] = useState(() => defaultSaveName(new Date()));
  const [description, setDescription] = useState('');
  const [saving, setSaving] = useState(false);
  const [failed, setFailed] = useState(false);
  const [saved, setSaved] = useState(false);
  const nameError = name.length > SAVE_NAME_MAX_LENGTH ? SAVE_NAME_TOO_LONG : undefined;

  const submit = async (event: React.FormEvent) => {
    event.preventDefault();
    if (nameError || saving) return;
    setSaving(true);
    setFailed(false);
    try {
      await saveSearch({ name: name.trim(), description: description.trim(), hash: searchHash, image });
      setSaved(true);
    } catch (error) {
      console.error('Saving the search failed', error);
      setFailed(true);
    } finally {
      setSaving(false);
    }
  };

  if (saved) {
    return (
      <Modal
        title="Saving in progress"
        onClose={onClose}
        size="sm"
        actions={
          <>
            <Button variant="secondary" onClick={onClose}>
              Close
            </Button>
            <Link className="btn btn-primary" to="/saved-searches">
              Go to Saved Searches
            </Link>
          </>
        }
      >
        <p className="modal__lead">Your search result is being saved.</p>
        <p>
          It appears under Saved Searches in a few minutes, with copies of the results that stay as they are
          now, even if the pages change.
        </p>
      </Modal>
    );
  }

  return (
    <Modal title="Save search" onClose={onClose} size="sm">
      <form className="form" onSubmit={submit} noValidate>
        <TextInput
          label="Name"
          value={name}
          onChange={(event) => setName(event.target.value)}
          error={nameError}
          hint={`Optional, at most ${SAVE_NAME_MAX_LENGTH} characters`}
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
            {SEARCH_MESSAGES.saveFailure}
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
