import { RESET_LINK_MINUTES } from '@osint/contract/constants';
import { PASSWORD_FLOW_MESSAGES, signInEmailProblem } from '@osint/contract/validation';
import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { Button } from '../../components/button.tsx';
import { MessageBanner, type BannerMessage } from '../../components/message-banner.tsx';
import { TextInput } from '../../components/text-field.tsx';
import { api } from '../../lib/api-client.ts';
import { AuthCard } from './auth-card.tsx';
import { serverDetail } from './server-detail.ts';
import './auth.css';

/** The spec asks for a format check without giving its words: the login form's (signInEmailProblem). */
export function ForgotPasswordPage() {
  const [email, setEmail] = useState('');
  const [error, setError] = useState<string>();
  const [failure, setFailure] = useState<BannerMessage>();
  const [sentTo, setSentTo] = useState<string>();
  const [submitting, setSubmitting] = useState(false);

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    setFailure(undefined);
    const problem = signInEmailProblem(email);
    setError(problem);
    if (problem) return;
    setSubmitting(true);
    try {
      await api('/user/request-reset', { method: 'POST', body: { email: email.trim() } });
      setSentTo(email.trim());
    } catch (caught) {
      const detail = serverDetail(caught);
      setFailure({
        message: PASSWORD_FLOW_MESSAGES.forgotFailure,
        type: 'danger',
        ...(detail ? { additionalMessage: detail } : {}),
      });
    } finally {
      setSubmitting(false);
    }
  };

  if (sentTo) {
    // The server answers the same whether or not the account exists, and so does this screen.
    return (
      <AuthCard
        icon="email"
        tone="success"
        title="Check your inbox"
        lead={<p>{PASSWORD_FLOW_MESSAGES.forgotSuccess}</p>}
        footer={
          <p>
            Remembered it? <Link to="/login">Back to login</Link>
          </p>
        }
      >
        <p className="auth-note">
          If an account exists for <strong className="auth-mail">{sentTo}</strong>, you will receive an e-mail
          with a link to choose a new password. The link is valid for {RESET_LINK_MINUTES} minutes and can be
          used once.
        </p>
        <Button variant="secondary" className="auth-submit" onClick={() => setSentTo(undefined)}>
          Use a different e-mail address
        </Button>
      </AuthCard>
    );
  }

  return (
    <AuthCard
      icon="key"
      title="Forgot your password?"
      lead={
        <p>Enter the e-mail address of your account and we will send you a link to choose a new password.</p>
      }
      footer={
        <p>
          Remembered it? <Link to="/login">Back to login</Link>
        </p>
      }
    >
      <form className="form auth-form" noValidate onSubmit={onSubmit}>
        {failure && <MessageBanner message={failure} />}
        <TextInput
          label="Email"
          type="email"
          autoComplete="username"
          inputMode="email"
          placeholder="name@organization.org"
          value={email}
          error={error}
          onChange={(event) => {
            setEmail(event.target.value);
            setError(undefined);
          }}
        />
        <Button type="submit" className="auth-submit" loading={submitting}>
          Send reset link
        </Button>
      </form>
    </AuthCard>
  );
}
