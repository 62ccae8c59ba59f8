import { EXTRACTION_NAME_MAX_LENGTH, EXTRACTOR_MESSAGES } from '@osint/contract/data-extractor';
import { useId, useState } from 'react';
import { Button } from '../../components/button.tsx';
import { Modal } from '../../components/modal.tsx';
import { TextArea, TextInput } from '../../components/text-field.tsx';

/**
 * Edit an extraction's name and description (spec 001 §5): the name must not be empty or blank, and Save
 * is disabled while it is. A failure is logged only (spec 001 §8).
 */
export function EditExtractionModal({
  initialName,
  initialDescription,
  onSave,
  onClose,
}: {
  initialName: string;
  initialDescription: string;
  onSave: (name: string, description: string) => Promise<void>;
  onClose: () => void;
}) {
  const [name, setName] = useState(initialName);
  const [description, setDescription] = useState(initialDescription);
  const [touched, setTouched] = useState(false);
  const [saving, setSaving] = useState(false);
  const blank = name.trim() === '';

  const submit = async (event: React.FormEvent) => {
    event.preventDefault();
    setTouched(true);
    if (blank || saving) return;
    setSaving(true);
    try {
      await onSave(name.trim(), description.trim());
    } finally {
      setSaving(false);
    }
  };

  return (
    <Modal title="Edit extraction" onClose={onClose} size="sm">
      <form className="form" onSubmit={submit} noValidate>
        <TextInput
          label="Name"
          value={name}
          maxLength={EXTRACTION_NAME_MAX_LENGTH}
          onChange={(event) => {
            setName(event.target.value);
            setTouched(true);
          }}
          error={touched && blank ? EXTRACTOR_MESSAGES.nameEmpty : undefined}
          autoComplete="off"
        />
        <TextArea
          label="Description (optional)"
          value={description}
          onChange={(event) => setDescription(event.target.value)}
          rows={3}
        />
        <div className="modal__actions">
          <Button variant="secondary" onClick={onClose}>
            Cancel
          </Button>
          <Button type="submit" loading={saving} disabled={blank}>
            Save
          </Button>
        </div>
      </form>
    </Modal>
  );
}

/**
 * Edit result (spec 001 §2 Modals): choose one of the other names the pages give for this face, or type
 * one. The name must not be blank (spec 001 §5).
 */
export function EditResultModal({
  currentName,
  currentDescription,
  alternativeNames,
  onSave,
  onClose,
}: {
  currentName: string;
  currentDescription: string;
  alternativeNames: string[];
  onSave: (name: string, description: string) => Promise<void>;
  onClose: () => void;
}) {
  const groupId = useId();
  const choices = [...new Set([currentName, ...alternativeNames].filter((n) => n.trim() !== ''))];
  const [name, setName] = useState(currentName);
  const [description, setDescription] = useState(currentDescription);
  const [touched, setTouched] = useState(false);
  const [saving, setSaving] = useState(false);
  const blank = name.trim() === '';

  const submit = async (event: React.FormEvent) => {
    event.preventDefault();
    setTouched(true);
    if (blank || saving) return;
    setSaving(true);
    try {
      await onSave(name.trim(), description.trim());
    } finally {
      setSaving(false);
    }
  };

  return (
    <Modal title="Edit result" onClose={onClose} size="sm">
      <form className="form" onSubmit={submit} noValidate>
        {choices.length > 1 && (
          <fieldset className="extractor-choices">
            <legend className="field__label" id={groupId}>
              Names found for this face
            </legend>
            {choices.map((choice) => (
              <label key={choice} className="checkbox extractor-choices__option">
                <input
                  type="radio"
                  name={groupId}
                  checked={name === choice}
                  onChange={() => {
                    setName(choice);
                    setTouched(true);
                  }}
                />
                <span>{choice}</span>
              </label>
            ))}
          </fieldset>
        )}
        <TextInput
          label="Name"
          value={name}
          maxLength={EXTRACTION_NAME_MAX_LENGTH}
          onChange={(event) => {
            setName(event.target.value);
            setTouched(true);
          }}
          error={touched && blank ? EXTRACTOR_MESSAGES.nameEmpty : undefined}
          hint={choices.length > 1 ? 'Choose a name above or type another one.' : undefined}
          autoComplete="off"
        />
        <TextArea
          label="Description (optional)"
          value={description}
          onChange={(event) => setDescription(event.target.value)}
          rows={3}
        />
        <div className="modal__actions">
          <Button variant="secondary" onClick={onClose}>
            Cancel
          </Button>
          <Button type="submit" loading={saving} disabled={blank}>
            Save
          </Button>
        </div>
      </form>
    </Modal>
  );
}
