import type { InvitationDetails, SetPasswordAnswer } from '@osint/contract/api-types';
import { isPasswordValid } from '@osint/contract/password';
import { PASSWORD_FLOW_MESSAGES } from '@osint/contract/validation';
import { useQuery } from '@tanstack/react-query';
import { useState, type FormEvent, type ReactNode } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { Button } from '../../components/button.tsx';
import { LoadingPlaceholder } from '../../components/loading-placeholder.tsx';
import { MessageBanner, type BannerMessage } from '../../components/message-banner.tsx';
import { api, ApiError } from '../../lib/api-client.ts';
import { useSession } from '../../lib/session.tsx';
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

/**
 * The page an invitation links to: it names the account and its organization, signs the user in once the
 * password is set, and says whether the owner has given them a seat yet.
 */
export function SetPasswordPage() {
  const [searchParams] = useSearchParams();
  const token = searchParams.get('token');
  const { refresh } = useSession();
  const [answer, setAnswer] = useState<SetPasswordAnswer>();
  const invitation = useQuery({
    queryKey: ['invitation', token],
    queryFn: () => api<InvitationDetails>(`/user/invitation?token=${encodeURIComponent(token ?? '')}`),
    enabled: token !== null && answer === undefined,
    retry: false,
    staleTime: Infinity,
  });
  if (!token) return <TokenPasswordForm flow={SET_FLOW} />;
  if (answer) return <InvitationAccepted invitation={invitation.data} answer={answer} />;
  if (invitation.isPending) return <LoadingPlaceholder />;
  if (!invitation.data) {
    return (
      <AuthCard icon="warning" tone="danger" title={SET_FLOW.title}>
        <MessageBanner message={{ message: PASSWORD_FLOW_MESSAGES.invalidToken, type: 'danger' }} />
        <p className="auth-note auth-center">
          Ask the owner of your organization’s account to send you a new invitation.
        </p>
      </AuthCard>
    );
  }
  const { email, organizationName } = invitation.data;
  return (
    <TokenPasswordForm
      flow={SET_FLOW}
      lead={
        <p>
          You have been invited to join{' '}
          <strong>
            <bdi>{organizationName}</bdi>
          </strong>
          . Choose the password for <strong>{email}</strong>; you will use it with this e-mail address to log
          in.
        </p>
      }
      onSaved={async (saved) => {
        if (saved?.signedIn) await refresh();
        setAnswer(saved ?? { signedIn: false, access: false });
      }}
    />
  );
}

/** After an invited user set their password: where they stand, and the way on. */
function InvitationAccepted({
  invitation,
  answer,
}: {
  invitation: InvitationDetails | undefined;
  answer: SetPasswordAnswer;
}) {
  const navigate = useNavigate();
  const organization = invitation?.organizationName ?? 'your organization';
  if (!answer.signedIn) {
    return (
      <AuthCard icon="success" tone="success" title={SET_FLOW.title} lead={<p>{SET_FLOW.success}</p>}>
        <Button className="auth-submit" onClick={() => navigate('/login')}>
          Back to login
        </Button>
      </AuthCard>
    );
  }
  return (
    <AuthCard icon="success" tone="success" title="Welcome" lead={<p>{SET_FLOW.success}</p>}>
      <p className="auth-note auth-center">
        You are signed in as <strong>{invitation?.email}</strong>, a member of{' '}
        <strong>
          <bdi>{organization}</bdi>
        </strong>
        .
      </p>
      {answer.access ? (
        <>
          <p className="auth-note auth-center">You have access to search.</p>
          <Button className="auth-submit" onClick={() => navigate('/search')}>
            Start searching
          </Button>
        </>
      ) : (
        <>
          <p className="auth-note auth-center" role="status">
            You have no access to search yet. The owner of your organization’s account gives access; ask them
            for a seat.
          </p>
          <Button className="auth-submit" onClick={() => navigate('/home')}>
            Go to your home page
          </Button>
        </>
      )}
    </AuthCard>
  );
}

interface TokenPasswordFormProps {
  flow: TokenPasswordFlow;
  /** Replaces the flow's lead (the invitation names the account). */
  lead?: ReactNode;
  /** Called with the server's answer once the password is saved; without it a success card shows. */
  onSaved?: (answer: SetPasswordAnswer | undefined) => Promise<void>;
}

function TokenPasswordForm({ flow, lead, onSaved }: TokenPasswordFormProps) {
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
      const answer = await api<SetPasswordAnswer | undefined>(flow.path, {
        method: 'POST',
        body: { token, newPassword: password },
      });
      if (onSaved) await onSaved(answer);
      else setSaved(true);
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
      lead={lead ?? <p>{flow.lead}</p>}
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
