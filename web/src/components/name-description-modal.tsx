import { useState, type ReactNode } from 'react';
import { Link } from 'react-router';
import { Button } from './button.tsx';
import { Modal } from './modal.tsx';
import { TextArea, TextInput } from './text-field.tsx';

/** What a modal shows once its work was handed over: the in-progress confirmation (spec 001 §4). */
export interface InProgressConfirmation {
  title: string;
  lead: string;
  text: string;
  link: { to: string; label: string };
}

/**
 * A modal form with a name and a description (spec 001 §4–§5: save a search, start an extraction, edit
 * either). `validate` names what is wrong with the name (Save is disabled while it does; the message
 * shows once the name was changed). A failing `onSubmit` is logged and shows `failure`, if given (spec 001
 * §8). With a `confirmation`, a successful submit turns the modal into the in-progress confirmation.
 */
export function NameDescriptionModal({
  title,
  lead,
  initialName,
  initialDescription = '',
  nameMaxLength,
  nameHint,
  validate,
  beforeName,
  descriptionLabel,
  descriptionRows,
  failure,
  submitLabel,
  confirmation,
  onSubmit,
  onClose,
}: {
  title: string;
  lead?: string;
  initialName: string;
  initialDescription?: string;
  nameMaxLength?: number;
  nameHint?: string | undefined;
  validate?: (name: string) => string | undefined;
  /** Fields above the name, given the name and a way to choose one. */
  beforeName?: (name: string, choose: (name: string) => void) => ReactNode;
  descriptionLabel: string;
  descriptionRows: number;
  failure?: { message: string; log: string };
  submitLabel: string;
  confirmation?: InProgressConfirmation;
  /** Receives the trimmed name and description. */
  onSubmit: (name: string, description: string) => Promise<unknown>;
  onClose: () => void;
}) {
  const [name, setName] = useState(initialName);
  const [description, setDescription] = useState(initialDescription);
  const [touched, setTouched] = useState(false);
  const [busy, setBusy] = useState(false);
  const [failed, setFailed] = useState(false);
  const [done, setDone] = useState(false);
  const nameError = validate?.(name);
  const choose = (chosen: string) => {
    setName(chosen);
    setTouched(true);
  };

  const submit = async (event: React.FormEvent) => {
    event.preventDefault();
    setTouched(true);
    if (nameError || busy) return;
    setBusy(true);
    setFailed(false);
    try {
      await onSubmit(name.trim(), description.trim());
      setDone(true);
    } catch (error) {
      if (!failure) throw error;
      console.error(failure.log, error);
      setFailed(true);
    } finally {
      setBusy(false);
    }
  };

  if (done && confirmation) {
    return (
      <Modal
        title={confirmation.title}
        onClose={onClose}
        size="sm"
        actions={
          <>
            <Button variant="secondary" onClick={onClose}>
              Close
            </Button>
            <Link className="btn btn-primary" to={confirmation.link.to}>
              {confirmation.link.label}
            </Link>
          </>
        }
      >
        <p className="modal__lead">{confirmation.lead}</p>
        <p>{confirmation.text}</p>
      </Modal>
    );
  }

  return (
    // Not closed while the form is sent: its confirmation would be lost and it could be sent twice.
    <Modal title={title} onClose={() => !busy && onClose()} size="sm">
      <form className="form" onSubmit={submit} noValidate>
        {lead && <p className="modal__lead">{lead}</p>}
        {beforeName?.(name, choose)}
        <TextInput
          label="Name"
          value={name}
          maxLength={nameMaxLength}
          onChange={(event) => choose(event.target.value)}
          error={touched ? nameError : undefined}
          hint={nameHint}
          autoComplete="off"
        />
        <TextArea
          label={descriptionLabel}
          value={description}
          onChange={(event) => setDescription(event.target.value)}
          rows={descriptionRows}
        />
        {failed && failure && (
          <p className="field__error" role="alert">
            {failure.message}
          </p>
        )}
        <div className="modal__actions">
          <Button variant="secondary" onClick={onClose} disabled={busy}>
            Cancel
          </Button>
          <Button type="submit" loading={busy} disabled={Boolean(nameError)}>
            {submitLabel}
          </Button>
        </div>
      </form>
    </Modal>
  );
}
