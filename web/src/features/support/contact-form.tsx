import { attachmentsProblem, BANNER_AUTO_HIDE_MS } from '@osint/contract/constants';
import {
  CONTACT_MESSAGES,
  CONTACT_SUBJECTS,
  validateContact,
  type ContactField,
  type FieldErrors,
} from '@osint/contract/validation';
import { useEffect, useId, useRef, useState, type DragEvent, type FormEvent } from 'react';
import { Button } from '../../components/button.tsx';
import { Dropdown } from '../../components/dropdown.tsx';
import { MessageBanner, type BannerMessage } from '../../components/message-banner.tsx';
import { TextArea, TextInput } from '../../components/text-field.tsx';
import { api, ApiError } from '../../lib/api-client.ts';
import { readFileAsDataUrl } from '../../lib/file-data.ts';
import './support.css';

interface Attachment {
  id: number;
  fileName: string;
  /** The whole file as a data URL: the API's `base64` field, and the preview's source for images. */
  dataUrl: string;
  type: string;
  size: number;
}

const SUBJECT_OPTIONS = CONTACT_SUBJECTS.map((subject) => ({ value: subject, label: subject }));
const FIELDS: readonly string[] = ['email', 'subject', 'message', 'files'] satisfies ContactField[];

function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/**
 * The contact form of spec 000 §4–§5, on the public contact page and on the signed-in support page.
 * A signed-in user writes from the account's address, so `lockedEmail` fills and locks the field.
 */
export function ContactForm({ lockedEmail }: { lockedEmail?: string | undefined }) {
  const [typedEmail, setTypedEmail] = useState('');
  const email = lockedEmail ?? typedEmail;
  const [subject, setSubject] = useState<string>();
  const [message, setMessage] = useState('');
  const [attachments, setAttachments] = useState<Attachment[]>([]);
  const [errors, setErrors] = useState<FieldErrors<ContactField>>({});
  const [notice, setNotice] = useState<BannerMessage>();
  const [sending, setSending] = useState(false);
  const [dragging, setDragging] = useState(false);
  const fileInput = useRef<HTMLInputElement>(null);
  const nextId = useRef(1);
  // The files that passed the limit check: attached, or still being read. Two drops in quick succession
  // are both checked against it, where the rendered list would not hold the first drop's files yet.
  const claimed = useRef<{ id: number; fileName: string; size: number }[]>([]);
  // One id prefix for the attachments label and its hint.
  const filesId = useId();

  // The success note hides itself like every banner of the product (spec 000 §4 Banner).
  useEffect(() => {
    if (notice?.type !== 'success') return;
    const timer = setTimeout(() => setNotice(undefined), BANNER_AUTO_HIDE_MS);
    return () => clearTimeout(timer);
  }, [notice]);

  const clearError = (field: ContactField) => setErrors(({ [field]: _cleared, ...rest }) => rest);

  const release = (id: number) => {
    claimed.current = claimed.current.filter((c) => c.id !== id);
  };

  const addFiles = async (files: File[]) => {
    if (files.length === 0) return;
    clearError('files');
    const wanted = files.map((file) => ({ id: nextId.current++, fileName: file.name, size: file.size }));
    // Too many or too large: said now, before anything is read or sent (the server would refuse it).
    const problem = attachmentsProblem([...claimed.current, ...wanted]);
    if (problem) {
      setErrors((current) => ({ ...current, files: problem }));
      return;
    }
    claimed.current = [...claimed.current, ...wanted];
    const read = await Promise.allSettled(files.map(readFileAsDataUrl));
    const added: Attachment[] = [];
    read.forEach((result, index) => {
      const file = files[index]!;
      const { id } = wanted[index]!;
      if (result.status === 'fulfilled') {
        added.push({ id, fileName: file.name, dataUrl: result.value, type: file.type, size: file.size });
      } else {
        release(id);
        setErrors((current) => ({ ...current, files: `The file "${file.name}" could not be read.` }));
      }
    });
    setAttachments((current) => [...current, ...added]);
  };

  const removeAttachment = (id: number) => {
    release(id);
    setAttachments((current) => current.filter((a) => a.id !== id));
    clearError('files');
  };

  const onDrop = (event: DragEvent) => {
    event.preventDefault();
    setDragging(false);
    void addFiles([...event.dataTransfer.files]);
  };

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    if (sending) return;
    setNotice(undefined);
    const found = validateContact({ email, subject: subject ?? '', message });
    setErrors(found);
    if (Object.keys(found).length > 0) return;
    setSending(true);
    try {
      await api('/support/contact-support', {
        method: 'POST',
        body: {
          email: email.trim(),
          subject,
          message,
          files: attachments.map((a) => ({ fileName: a.fileName, base64: a.dataUrl })),
        },
      });
      // The e-mail stays: the next message most likely comes from the same person.
      setSubject(undefined);
      setMessage('');
      setAttachments([]);
      claimed.current = [];
      setNotice({ message: CONTACT_MESSAGES.success, type: 'success', icon: 'email' });
    } catch (error) {
      if (!(error instanceof ApiError)) {
        // Spec 000 §8: a non-HTTP failure (the network) is logged only.
        console.error('Sending the contact form failed', error);
        return;
      }
      const fieldViolations = error.violations.filter((v) => FIELDS.includes(v.field));
      if (fieldViolations.length > 0) {
        setErrors(Object.fromEntries(fieldViolations.map((v) => [v.field, v.message])));
      } else {
        // No field to point at (a rate limit, a server fault): the server's sentence is the best we have.
        setNotice({ message: error.message, type: 'danger' });
      }
    } finally {
      setSending(false);
    }
  };

  return (
    <form className="form contact-form" noValidate onSubmit={onSubmit}>
      <header className="contact-form-header">
        {/* Not "message": the page's fields are found by their labels, and this title must not compete. */}
        <h2 className="contact-form-title">How can we help?</h2>
        <p className="contact-form-lead">
          Tell us what you need. Screenshots or documents help us answer faster.
        </p>
      </header>
      <div className="contact-form-row">
        <TextInput
          label="Email"
          type="email"
          autoComplete="email"
          inputMode="email"
          placeholder="name@organization.org"
          value={email}
          disabled={lockedEmail !== undefined}
          hint={lockedEmail !== undefined ? 'We reply to the address of your account.' : undefined}
          error={errors.email}
          onChange={(event) => {
            setTypedEmail(event.target.value);
            clearError('email');
          }}
        />
        <Dropdown
          label="Subject"
          placeholder="Select a subject"
          options={SUBJECT_OPTIONS}
          value={subject}
          error={errors.subject}
          onChange={(value) => {
            setSubject(value);
            clearError('subject');
          }}
        />
      </div>
      <TextArea
        label="Message"
        placeholder="Describe your question or what you noticed"
        rows={7}
        value={message}
        error={errors.message}
        onChange={(event) => {
          setMessage(event.target.value);
          clearError('message');
        }}
      />

      <div className={`field contact-form-files${errors.files ? ' field--invalid' : ''}`}>
        <span className="field__label" id={`${filesId}-label`}>
          Attachments <span className="contact-form-optional">(optional)</span>
        </span>
        <div
          className={`contact-form-dropzone${dragging ? ' contact-form-dropzone--active' : ''}`}
          onDragOver={(event) => {
            event.preventDefault();
            setDragging(true);
          }}
          onDragLeave={() => setDragging(false)}
          onDrop={onDrop}
        >
          <PaperclipIcon className="contact-form-dropzone-icon" />
          <p className="contact-form-dropzone-text">
            Drag files here or{' '}
            <button
              type="button"
              className="contact-form-browse"
              aria-describedby={`${filesId}-hint`}
              onClick={() => fileInput.current?.click()}
            >
              choose files
            </button>
          </p>
          <p className="contact-form-dropzone-hint" id={`${filesId}-hint`}>
            Screenshots, documents or any other file. You can attach several.
          </p>
          {/* Hidden: the button above is the keyboard-reachable way to open it. */}
          <input
            ref={fileInput}
            type="file"
            multiple
            hidden
            aria-labelledby={`${filesId}-label`}
            onChange={(event) => {
              const files = [...(event.target.files ?? [])];
              // Reset, so choosing the same file again after removing it fires a change.
              event.target.value = '';
              void addFiles(files);
            }}
          />
        </div>
        {attachments.length > 0 && (
          <ul className="contact-form-attachments" aria-label="Attached files">
            {attachments.map((attachment) => (
              <li key={attachment.id} className="contact-form-attachment">
                {attachment.type.startsWith('image/') ? (
                  <img className="contact-form-thumb" src={attachment.dataUrl} alt="" />
                ) : (
                  <span className="contact-form-thumb contact-form-thumb--file" aria-hidden="true">
                    <PaperclipIcon />
                  </span>
                )}
                <span className="contact-form-attachment-text">
                  <span className="contact-form-attachment-name" title={attachment.fileName}>
                    {attachment.fileName}
                  </span>
                  <span className="contact-form-attachment-size">{formatSize(attachment.size)}</span>
                </span>
                <button
                  type="button"
                  className="contact-form-remove"
                  aria-label={`Remove ${attachment.fileName}`}
                  onClick={() => removeAttachment(attachment.id)}
                >
                  <svg viewBox="0 0 20 20" aria-hidden="true">
                    <path
                      d="m5 5 10 10M15 5 5 15"
                      stroke="currentColor"
                      strokeWidth="2"
                      strokeLinecap="round"
                    />
                  </svg>
                </button>
              </li>
            ))}
          </ul>
        )}
        {errors.files && (
          <p className="field__error" role="alert">
            {errors.files}
          </p>
        )}
      </div>

      {notice && <MessageBanner message={notice} onClose={() => setNotice(undefined)} />}
      <div className="contact-form-actions">
        <Button type="submit" loading={sending} looksDisabled={!message.trim() || sending}>
          Send message
        </Button>
      </div>
    </form>
  );
}

function PaperclipIcon({ className }: { className?: string }) {
  return (
    <svg className={className} viewBox="0 0 24 24" aria-hidden="true">
      <path
        d="M20.5 11.5 12 20a5.5 5.5 0 0 1-7.8-7.8l8.9-8.9a3.7 3.7 0 0 1 5.2 5.2l-8.9 8.9a1.8 1.8 0 0 1-2.6-2.6l8.2-8.2"
        fill="none"
        stroke="currentColor"
        strokeWidth="1.8"
        strokeLinecap="round"
        strokeLinejoin="round"
      />
    </svg>
  );
}
