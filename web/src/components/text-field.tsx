import { useId, type InputHTMLAttributes, type ReactNode, type TextareaHTMLAttributes } from 'react';

interface FieldFrameProps {
  label: string;
  error?: string | undefined;
  hint?: ReactNode;
  id: string;
  children: ReactNode;
}

function FieldFrame({ label, error, hint, id, children }: FieldFrameProps) {
  return (
    <div className={`field${error ? ' field--invalid' : ''}`}>
      <label className="field__label" htmlFor={id}>
        {label}
      </label>
      {children}
      {hint && <div className="field__hint">{hint}</div>}
      {error && (
        <p className="field__error" id={`${id}-error`} role="alert">
          {error}
        </p>
      )}
    </div>
  );
}

type TextInputProps = Omit<InputHTMLAttributes<HTMLInputElement>, 'id'> & {
  label: string;
  error?: string | undefined;
  hint?: ReactNode;
};

export function TextInput({ label, error, hint, className, ...rest }: TextInputProps) {
  const id = useId();
  return (
    <FieldFrame label={label} error={error} hint={hint} id={id}>
      <input
        id={id}
        // Names and notes in Arabic or Hebrew run right to left as typed; Latin text stays left to right.
        dir="auto"
        className={`input ${className ?? ''}`}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? `${id}-error` : undefined}
        {...rest}
      />
    </FieldFrame>
  );
}

type TextAreaProps = Omit<TextareaHTMLAttributes<HTMLTextAreaElement>, 'id'> & {
  label: string;
  error?: string | undefined;
};

export function TextArea({ label, error, className, ...rest }: TextAreaProps) {
  const id = useId();
  return (
    <FieldFrame label={label} error={error} id={id}>
      <textarea
        id={id}
        dir="auto"
        className={`input textarea ${className ?? ''}`}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? `${id}-error` : undefined}
        {...rest}
      />
    </FieldFrame>
  );
}
