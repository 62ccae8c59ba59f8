import { VERIFY_EMAIL_MESSAGES } from '@osint/contract/constants';
import { useEffect, useRef, useState } from 'react';
import { Link, useParams } from 'react-router';
import { LoadingPlaceholder } from '../../components/loading-placeholder.tsx';
import { api, ApiError } from '../../lib/api-client.ts';
import { AuthCard } from './auth-card.tsx';
import './auth.css';

type Outcome = 'loading' | 'verified' | 'invalid' | 'failed';

/** 409 means the link was used before (or by our own second request): the address is confirmed either way. */
async function validateHash(hash: string): Promise<Outcome> {
  try {
    await api(`/user/validate/${encodeURIComponent(hash)}`, { method: 'POST' });
    return 'verified';
  } catch (error) {
    if (error instanceof ApiError && error.status === 409) return 'verified';
    if (error instanceof ApiError && error.status === 400) return 'invalid';
    return 'failed';
  }
}

export function VerifyEmailPage() {
  const { verificationHash } = useParams();
  const [attempt, setAttempt] = useState(0);
  // The answer belongs to one hash and one attempt; until it arrives for the current pair we are loading.
  const key = `${verificationHash ?? ''}#${attempt}`;
  const [result, setResult] = useState<{ key: string; outcome: Outcome }>();
  const outcome: Outcome = result?.key === key ? result.outcome : 'loading';
  // The pair already posted: StrictMode runs mount effects twice, and the link is single-use.
  const posted = useRef<string>(undefined);

  useEffect(() => {
    if (!verificationHash || posted.current === key) return;
    posted.current = key;
    // No cancellation on cleanup: StrictMode's simulated unmount would drop the only answer we get.
    void validateHash(verificationHash).then((answer) => setResult({ key, outcome: answer }));
  }, [verificationHash, key]);

  if (!verificationHash) {
    return (
      <AuthCard
        icon="warning"
        tone="danger"
        title="Verification code not found"
        lead={<p>{VERIFY_EMAIL_MESSAGES.missingHash}</p>}
        footer={<RegisterAgainFooter />}
      >
        <p className="auth-muted auth-center">
          Open the link from the confirmation e-mail exactly as it was sent, or copy the whole address into
          your browser.
        </p>
      </AuthCard>
    );
  }

  if (outcome === 'loading') {
    return (
      <AuthCard icon="email" title="Confirming your e-mail address" lead={<p>This takes only a moment.</p>}>
        <LoadingPlaceholder />
      </AuthCard>
    );
  }

  if (outcome === 'verified') {
    return (
      <AuthCard
        icon="success"
        tone="success"
        title="Registration Successful"
        lead={<p>Thank you, your e-mail address is confirmed.</p>}
        footer={
          <p>
            Questions about the verification? <Link to="/contact">Contact us</Link>
          </p>
        }
      >
        <ol className="auth-steps">
          <li className="auth-step auth-step--done">Registration form sent</li>
          <li className="auth-step auth-step--done">E-mail address confirmed</li>
          <li className="auth-step auth-step--current">Our team verifies your organization</li>
        </ol>
        <p className="auth-note">
          We now verify your organization. This is a manual check of the details you gave us. You will receive
          an e-mail as soon as your account is approved, and you can then log in.
        </p>
        <Link className="btn btn-secondary auth-submit" to="/">
          Back to the home page
        </Link>
      </AuthCard>
    );
  }

  if (outcome === 'invalid') {
    return (
      <AuthCard
        icon="warning"
        tone="danger"
        title="This link cannot be used"
        lead={<p>{VERIFY_EMAIL_MESSAGES.invalidHash}</p>}
        footer={<RegisterAgainFooter />}
      >
        <Link className="btn btn-primary auth-submit" to="/register">
          Register again
        </Link>
      </AuthCard>
    );
  }

  return (
    <AuthCard
      icon="warning"
      tone="danger"
      title="We could not confirm your e-mail address"
      lead={<p>Something went wrong on our side. Please try again in a few minutes.</p>}
    >
      <button type="button" className="btn btn-primary auth-submit" onClick={() => setAttempt((n) => n + 1)}>
        Try again
      </button>
    </AuthCard>
  );
}

function RegisterAgainFooter() {
  return (
    <p>
      Link expired or lost? <Link to="/register">Register again</Link> · <Link to="/contact">Contact us</Link>
    </p>
  );
}
