import { useState } from 'react';
import { PasswordChecklist } from '../../components/password-checklist.tsx';
import { TextInput } from '../../components/text-field.tsx';

interface PasswordFieldProps {
  label: string;
  value: string;
  onChange: (value: string) => void;
  error?: string | undefined;
}

/**
 * A new-password input with the live checklist of spec 000 §5. The checklist stays neutral until the
 * field is first focused, so a visitor is not greeted by four red lines before typing anything.
 */
export function PasswordField({ label, value, onChange, error }: PasswordFieldProps) {
  const [touched, setTouched] = useState(false);
  return (
    <TextInput
      label={label}
      type="password"
      autoComplete="new-password"
      value={value}
      onChange={(event) => onChange(event.target.value)}
      onFocus={() => setTouched(true)}
      error={error}
      hint={<PasswordChecklist password={value} touched={touched} />}
    />
  );
}
