import { VERIFICATION_LINK_HOURS } from '@osint/contract/constants';
import { ORGANIZATION_TYPES } from '@osint/contract/organization';
import { isPasswordValid } from '@osint/contract/password';
import {
  REGISTER_MESSAGES,
  validateRegistration,
  type FieldErrors,
  type RegisterField,
} from '@osint/contract/validation';
import { useRef, useState, type FormEvent, type ReactNode } from 'react';
import { Link } from 'react-router';
import { Button } from '../../components/button.tsx';
import { Dropdown } from '../../components/dropdown.tsx';
import { MessageBanner, type BannerMessage } from '../../components/message-banner.tsx';
import { TextInput } from '../../components/text-field.tsx';
import { api, ApiError } from '../../lib/api-client.ts';
import { AuthCard } from './auth-card.tsx';
import { focusFirstInvalid } from './focus-first-invalid.ts';
import { PasswordField } from './password-field.tsx';
import { serverDetail } from './server-detail.ts';
import { useResendConfirmation } from './use-resend-confirmation.ts';
import './auth.css';

type Agreement = 'terms' | 'privacy' | 'newsletter';
type FormField = RegisterField | 'terms' | 'privacy';

// The spec requires both agreements but gives no sentence for a missing tick; these say what to do.
const AGREEMENT_MESSAGES = {
  terms: 'Please accept the Terms of Service.',
  privacy: 'Please accept the Privacy Policy.',
} as const;

const TYPE_OPTIONS = Object.entries(ORGANIZATION_TYPES).map(([value, label]) => ({ value, label }));
const KNOWN_FIELDS: readonly string[] = [
  'email',
  'password',
  'organizationName',
  'organizationUrl',
  'organizationType',
];

export function RegisterPage() {
  const [registeredMail, setRegisteredMail] = useState<string>();
  if (registeredMail) return <ConfirmEmailScreen mail={registeredMail} />;
  return <RegisterForm onRegistered={setRegisteredMail} />;
}

function RegisterForm({ onRegistered }: { onRegistered: (mail: string) => void }) {
  const [mail, setMail] = useState('');
  const [password, setPassword] = useState('');
  const [organizationName, setOrganizationName] = useState('');
  const [organizationLink, setOrganizationLink] = useState('');
  const [organizationType, setOrganizationType] = useState<string>();
  const [agreements, setAgreements] = useState<Record<Agreement, boolean>>({
    terms: false,
    privacy: false,
    newsletter: false,
  });
  const [errors, setErrors] = useState<FieldErrors<FormField>>({});
  const [failure, setFailure] = useState<BannerMessage>();
  const [submitting, setSubmitting] = useState(false);
  const form = useRef<HTMLFormElement>(null);

  // "Accept all" is the required agreements: the newsletter is only ever ticked on its own.
  const allAccepted = agreements.terms && agreements.privacy;
  const passwordValid = isPasswordValid(password);

  // Editing a field takes back the complaint about it; the others stay until the next submit.
  const clearError = (field: FormField) => setErrors(({ [field]: _cleared, ...rest }) => rest);
  const edit = (field: FormField, set: (value: string) => void) => (value: string) => {
    set(value);
    clearError(field);
  };
  const setAgreement = (name: Agreement, checked: boolean) => {
    setAgreements((current) => ({ ...current, [name]: checked }));
    if (name !== 'newsletter') clearError(name);
  };
  const setAll = (checked: boolean) => {
    setAgreements((current) => ({ ...current, terms: checked, privacy: checked }));
    clearError('terms');
    clearError('privacy');
  };

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    setFailure(undefined);
    const input = {
      mail,
      password,
      organizationName,
      organizationLink,
      organizationType: organizationType ?? '',
    };
    const found: FieldErrors<FormField> = validateRegistration(input);
    if (!agreements.terms) found.terms = AGREEMENT_MESSAGES.terms;
    if (!agreements.privacy) found.privacy = AGREEMENT_MESSAGES.privacy;
    setErrors(found);
    if (Object.keys(found).length > 0) return focusFirstInvalid(form.current);
    setSubmitting(true);
    try {
      await api('/user/register', {
        method: 'POST',
        body: {
          mail: mail.trim(),
          password,
          organizationName: organizationName.trim(),
          organizationLink: organizationLink.trim(),
          organizationType,
          newsletter: agreements.newsletter,
        },
      });
      // The confirmation screen is short: start reading it from the top, not where the button was.
      window.scrollTo({ top: 0 });
      onRegistered(mail.trim());
    } catch (error) {
      setSubmitting(false);
      const fieldViolations =
        error instanceof ApiError && error.status === 400
          ? error.violations.filter((v) => KNOWN_FIELDS.includes(v.field))
          : [];
      if (fieldViolations.length > 0) {
        setErrors(Object.fromEntries(fieldViolations.map((v) => [v.field, v.message])));
        focusFirstInvalid(form.current);
        return;
      }
      const detail = serverDetail(error);
      setFailure({
        message: REGISTER_MESSAGES.failure,
        type: 'danger',
        ...(detail ? { additionalMessage: detail } : {}),
      });
    }
  };

  return (
    <AuthCard
      icon="organization"
      title="Request access"
      lead={
        <p>
          Register your organization. After you confirm your e-mail address, our team verifies the
          organization and lets you know by e-mail when your account is active.
        </p>
      }
      footer={
        <p>
          Already have an account? <Link to="/login">Log in</Link>
        </p>
      }
    >
      <form className="form auth-form" noValidate onSubmit={onSubmit} ref={form}>
        <fieldset className="auth-fieldset">
          <legend className="auth-legend">Your account</legend>
          <TextInput
            label="Email"
            type="email"
            autoComplete="email"
            inputMode="email"
            placeholder="name@organization.org"
            hint="Use your organization’s address. Free e-mail providers are not accepted."
            value={mail}
            error={errors.email}
            onChange={(event) => edit('email', setMail)(event.target.value)}
          />
          <PasswordField
            label="Password"
            value={password}
            error={errors.password}
            onChange={edit('password', setPassword)}
          />
        </fieldset>

        <fieldset className="auth-fieldset">
          <legend className="auth-legend">Your organization</legend>
          <TextInput
            label="Organization name"
            autoComplete="organization"
            value={organizationName}
            error={errors.organizationName}
            onChange={(event) => edit('organizationName', setOrganizationName)(event.target.value)}
          />
          <TextInput
            label="Organization link"
            type="url"
            autoComplete="url"
            inputMode="url"
            placeholder="https://www.organization.org"
            value={organizationLink}
            error={errors.organizationUrl}
            onChange={(event) => edit('organizationUrl', setOrganizationLink)(event.target.value)}
          />
          <Dropdown
            label="Organization type"
            placeholder="Select organization type"
            options={TYPE_OPTIONS}
            value={organizationType}
            error={errors.organizationType}
            onChange={(value) => {
              setOrganizationType(value);
              clearError('organizationType');
            }}
          />
        </fieldset>

        <fieldset className="auth-fieldset auth-agreements">
          <legend className="auth-legend">Agreements</legend>
          <Checkbox label="Accept all" checked={allAccepted} onChange={setAll} strong />
          <Checkbox
            label={
              <>
                I agree to the{' '}
                <a href="/terms-of-service" target="_blank" rel="noopener noreferrer">
                  Terms of Service
                </a>
              </>
            }
            checked={agreements.terms}
            onChange={(checked) => setAgreement('terms', checked)}
            error={errors.terms}
            required
          />
          <Checkbox
            label={
              <>
                I agree to the{' '}
                <a href="/privacy-policy" target="_blank" rel="noopener noreferrer">
                  Privacy Policy
                </a>
              </>
            }
            checked={agreements.privacy}
            onChange={(checked) => setAgreement('privacy', checked)}
            error={errors.privacy}
            required
          />
          <Checkbox
            label="Send me the newsletter: e-mails when AI data extractor analyses are completed (optional)"
            checked={agreements.newsletter}
            onChange={(checked) => setAgreement('newsletter', checked)}
          />
        </fieldset>

        {failure && <MessageBanner message={failure} />}
        <Button
          type="submit"
          className="auth-submit"
          loading={submitting}
          disabled={!passwordValid}
          title={passwordValid ? undefined : 'Choose a password that meets every requirement first.'}
        >
          Register
        </Button>
      </form>
    </AuthCard>
  );
}

interface CheckboxProps {
  label: ReactNode;
  checked: boolean;
  onChange: (checked: boolean) => void;
  error?: string | undefined;
  required?: boolean;
  strong?: boolean;
}

function Checkbox({ label, checked, onChange, error, required, strong }: CheckboxProps) {
  return (
    <div className={`auth-checkbox${error ? ' auth-checkbox--invalid' : ''}`}>
      <label className={`checkbox${strong ? ' auth-checkbox-strong' : ''}`}>
        <input
          type="checkbox"
          checked={checked}
          required={required}
          aria-invalid={error ? true : undefined}
          onChange={(event) => onChange(event.target.checked)}
        />
        <span>{label}</span>
      </label>
      {error && (
        <p className="field__error auth-checkbox-error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}

/** "Your registration is almost done": the account waits for the e-mail link (spec 000 §4 Registration). */
function ConfirmEmailScreen({ mail }: { mail: string }) {
  const { resending, notice, resend } = useResendConfirmation(mail);

  return (
    <AuthCard
      icon="email"
      title="Your registration is almost done"
      lead={
        <p>
          We have sent a confirmation link to <strong className="auth-mail">{mail}</strong>. Please check your
          inbox and click the link to confirm your e-mail address.
        </p>
      }
      footer={
        <p>
          Wrong address? <Link to="/contact">Contact our support</Link>
        </p>
      }
    >
      <ol className="auth-steps">
        <li className="auth-step auth-step--done">Registration form sent</li>
        <li className="auth-step auth-step--current">Confirm your e-mail address</li>
        <li className="auth-step">Our team verifies your organization</li>
      </ol>
      <p className="auth-note">
        The link is valid for {VERIFICATION_LINK_HOURS} hours. If it expires, please register again.
      </p>
      <div className="auth-resend">
        {notice && <MessageBanner message={notice} />}
        <p className="auth-muted">Didn’t get the e-mail? Check your spam folder or send it again.</p>
        <Button variant="secondary" loading={resending} onClick={() => void resend()}>
          Resend e-mail
        </Button>
      </div>
    </AuthCard>
  );
}
