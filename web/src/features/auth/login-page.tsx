import { LOGIN_MESSAGES, validateLogin, type FieldErrors } from '@osint/contract/validation';
import { useRef, useState, type FormEvent } from 'react';
import { Link, useLocation, useNavigate } from 'react-router';
import { Button } from '../../components/button.tsx';
import { MessageBanner, type BannerMessage } from '../../components/message-banner.tsx';
import { TextInput } from '../../components/text-field.tsx';
import { ApiError } from '../../lib/api-client.ts';
import { useSession } from '../../lib/session.tsx';
import { AuthCard } from './auth-card.tsx';
import { focusFirstInvalid } from './focus-first-invalid.ts';
import { useResendConfirmation } from './use-resend-confirmation.ts';
import './auth.css';

type LoginField = 'email' | 'password';

const SERVER_REFUSALS: ReadonlySet<string> = new Set([
  LOGIN_MESSAGES.declined,
  LOGIN_MESSAGES.blocked,
  LOGIN_MESSAGES.emailUnverified,
]);

/** Spec 000 §8: the login answers a visitor can get, by HTTP status. */
export function loginFailureMessage(error: unknown): string {
  if (error instanceof ApiError) {
    if (error.status === 401) return LOGIN_MESSAGES.wrongCredentials;
    // The server says why an account with the right password may not sign in (declined, blocked, e-mail
    // not confirmed); any other refusal is the verification still under way.
    if (error.status === 403)
      return SERVER_REFUSALS.has(error.message) ? error.message : LOGIN_MESSAGES.notApproved;
    // A rate limit carries its own advice (when to try again); anything else gets the generic sentence.
    if (error.status === 429 && error.message) return error.message;
  }
  return LOGIN_MESSAGES.failure;
}

/** Only a path of this site, so a crafted `state.from` cannot send the user to another origin. */
function returnPath(state: unknown): string {
  const from = (state as { from?: unknown } | null)?.from;
  return typeof from === 'string' && from.startsWith('/') && !from.startsWith('//') ? from : '/home';
}

export function LoginPage() {
  const { login } = useSession();
  const navigate = useNavigate();
  const location = useLocation();
  const [mail, setMail] = useState('');
  const [password, setPassword] = useState('');
  const [errors, setErrors] = useState<FieldErrors<LoginField>>({});
  const [failure, setFailure] = useState<BannerMessage>();
  const [submitting, setSubmitting] = useState(false);
  const form = useRef<HTMLFormElement>(null);
  /** The address of an account that signed in with the right password but never confirmed its e-mail. */
  const [unconfirmed, setUnconfirmed] = useState<string>();

  const clearError = (field: LoginField) => setErrors(({ [field]: _cleared, ...rest }) => rest);

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    setFailure(undefined);
    const found = validateLogin({ mail, password });
    setErrors(found);
    if (Object.keys(found).length > 0) return focusFirstInvalid(form.current);
    setSubmitting(true);
    try {
      await login(mail.trim(), password);
      navigate(returnPath(location.state), { replace: true });
    } catch (error) {
      const message = loginFailureMessage(error);
      setFailure({ message, type: 'danger' });
      setUnconfirmed(message === LOGIN_MESSAGES.emailUnverified ? mail.trim() : undefined);
      setSubmitting(false);
    }
  };

  return (
    <AuthCard
      icon="lock"
      title="Log in to your account"
      lead="Access face search and the AI data extractor with your organization account."
      footer={
        <p>
          No account yet? <Link to="/register">Request access for your organization</Link>
        </p>
      }
    >
      <form className="form auth-form" noValidate onSubmit={onSubmit} ref={form}>
        {failure && <MessageBanner message={failure} />}
        {unconfirmed && <ResendConfirmation mail={unconfirmed} />}
        <TextInput
          label="Email"
          type="email"
          autoComplete="username"
          inputMode="email"
          placeholder="name@organization.org"
          value={mail}
          error={errors.email}
          onChange={(event) => {
            setMail(event.target.value);
            clearError('email');
          }}
        />
        <div className="auth-field-with-link">
          <TextInput
            label="Password"
            type="password"
            autoComplete="current-password"
            value={password}
            error={errors.password}
            onChange={(event) => {
              setPassword(event.target.value);
              clearError('password');
            }}
          />
          <Link className="auth-aside-link" to="/forgot-password">
            Forgot password?
          </Link>
        </div>
        <Button type="submit" className="auth-submit" loading={submitting}>
          Sign in
        </Button>
      </form>
    </AuthCard>
  );
}

/** "Resend e-mail" for an unconfirmed account (spec 000 §4): a new confirmation link to its address. */
function ResendConfirmation({ mail }: { mail: string }) {
  const { resending, notice, resend } = useResendConfirmation(mail);
  return (
    <div className="auth-resend">
      {notice && <MessageBanner message={notice} />}
      <Button variant="secondary" loading={resending} onClick={() => void resend()}>
        Resend e-mail
      </Button>
    </div>
  );
}
