import { isPasswordValid } from '@osint/contract/password';
import { PASSWORD_FLOW_MESSAGES } from '@osint/contract/validation';
import { useState, type FormEvent } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { Button } from '../../components/button.tsx';
import { MessageBanner, type BannerMessage } from '../../components/message-banner.tsx';
import { api, ApiError } from '../../lib/api-client.ts';
import { AuthCard } from './auth-card.tsx';
import { PasswordField } from './password-field.tsx';
import { serverDetail } from './server-detail.ts';
import './auth.css';

/** What differs between the reset flow (forgot password) and the set flow (invitations): words and path. */
interface TokenPasswordFlow {
  title: string;
  lead: string;
  path: '/user/reset-password' | '/user/set-password';
  success: string;
  failure: string;
}

const RESET_FLOW: TokenPasswordFlow = {
  title: 'Reset Your Password',
  lead: 'Choose a new password for your account. You will use it the next time you log in.',
  path: '/user/reset-password',
  success: PASSWORD_FLOW_MESSAGES.resetSuccess,
  failure: PASSWORD_FLOW_MESSAGES.resetFailure,
};

const SET_FLOW: TokenPasswordFlow = {
  title: 'Set Your Password',
  lead: 'Choose the password for your new account. You will use it together with your e-mail address to log in.',
  path: '/user/set-password',
  success: PASSWORD_FLOW_MESSAGES.setSuccess,
  failure: PASSWORD_FLOW_MESSAGES.setFailure,
};

export function ResetPasswordPage() {
  return <TokenPasswordForm flow={RESET_FLOW} />;
}

export function SetPasswordPage() {
  return <TokenPasswordForm flow={SET_FLOW} />;
}

function TokenPasswordForm({ flow }: { flow: TokenPasswordFlow }) {
  const [searchParams] = useSearchParams();
  const token = searchParams.get('token');
  const navigate = useNavigate();
  const [password, setPassword] = useState('');
  const [fieldError, setFieldError] = useState<string>();
  const [failure, setFailure] = useState<BannerMessage>();
  const [saved, setSaved] = useState(false);
  const [submitting, setSubmitting] = useState(false);
  const valid = isPasswordValid(password);

  if (!token) {
    return (
      <AuthCard
        icon="warning"
        tone="danger"
        title={flow.title}
        footer={
          <p>
            <Link to="/contact">Contact our support</Link> ·{' '}
            <Link to="/forgot-password">Request a new link</Link>
          </p>
        }
      >
        <MessageBanner message={{ message: PASSWORD_FLOW_MESSAGES.missingToken, type: 'danger' }} />
      </AuthCard>
    );
  }

  if (saved) {
    return (
      <AuthCard icon="success" tone="success" title={flow.title} lead={<p>{flow.success}</p>}>
        <p className="auth-note auth-center">
          You can now log in with your e-mail address and the new password.
        </p>
        <Button className="auth-submit" onClick={() => navigate('/login')}>
          Back to login
        </Button>
      </AuthCard>
    );
  }

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    if (!valid) return;
    setFailure(undefined);
    setSubmitting(true);
    try {
      await api(flow.path, { method: 'POST', body: { token, newPassword: password } });
      setSaved(true);
    } catch (error) {
      const passwordViolation =
        error instanceof ApiError ? error.violations.find((v) => v.field === 'newPassword') : undefined;
      if (passwordViolation) setFieldError(passwordViolation.message);
      const detail = passwordViolation ? undefined : serverDetail(error);
      setFailure({ message: flow.failure, type: 'danger', ...(detail ? { additionalMessage: detail } : {}) });
    } finally {
      setSubmitting(false);
    }
  };

  return (
    <AuthCard
      icon="lock"
      title={flow.title}
      lead={<p>{flow.lead}</p>}
      footer={
        <p>
          <Link to="/login">Back to login</Link>
        </p>
      }
    >
      <form className="form auth-form" noValidate onSubmit={onSubmit}>
        {failure && <MessageBanner message={failure} />}
        <PasswordField
          label="New password"
          value={password}
          error={fieldError}
          onChange={(value) => {
            setPassword(value);
            setFieldError(undefined);
          }}
        />
        <Button type="submit" className="auth-submit" loading={submitting} disabled={!valid}>
          Save New Password
        </Button>
      </form>
    </AuthCard>
  );
}
