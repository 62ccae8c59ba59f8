import { EXTRACTION_NAME_MAX_LENGTH, EXTRACTOR_MESSAGES } from '@osint/contract/data-extractor';
import { useId } from 'react';
import { NameDescriptionModal } from '../../components/name-description-modal.tsx';

const nameEmpty = (name: string) => (name.trim() === '' ? EXTRACTOR_MESSAGES.nameEmpty : undefined);

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
  return (
    <NameDescriptionModal
      title="Edit extraction"
      initialName={initialName}
      initialDescription={initialDescription}
      nameMaxLength={EXTRACTION_NAME_MAX_LENGTH}
      validate={nameEmpty}
      descriptionLabel="Description (optional)"
      descriptionRows={3}
      submitLabel="Save"
      onSubmit={onSave}
      onClose={onClose}
    />
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
  return (
    <NameDescriptionModal
      title="Edit result"
      initialName={currentName}
      initialDescription={currentDescription}
      nameMaxLength={EXTRACTION_NAME_MAX_LENGTH}
      nameHint={choices.length > 1 ? 'Choose a name above or type another one.' : undefined}
      validate={nameEmpty}
      beforeName={(name, choose) =>
        choices.length > 1 && (
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
                  onChange={() => choose(choice)}
                />
                <span dir="auto">{choice}</span>
              </label>
            ))}
          </fieldset>
        )
      }
      descriptionLabel="Description (optional)"
      descriptionRows={3}
      submitLabel="Save"
      onSubmit={onSave}
      onClose={onClose}
    />
  );
}
