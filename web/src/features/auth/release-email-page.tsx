import { VERIFY_EMAIL_MESSAGES } from '@osint/contract/constants';
import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { api, ApiError } from '../../lib/api-client.ts';
import { AuthCard } from './auth-card.tsx';
import './auth.css';

type State = 'asking' | 'sending' | 'released' | 'invalid' | 'failed';

/**
 * /release-email/:verificationHash: the owner of an address that someone else registered removes that
 * unconfirmed registration, from the link in the confirmation e-mail. A button, not the link itself, does
 * it: mail scanners open links.
 */
export function ReleaseEmailPage() {
  const { verificationHash = '' } = useParams();
  const [state, setState] = useState<State>('asking');

  const release = async () => {
    setState('sending');
    try {
      await api(`/user/release/${encodeURIComponent(verificationHash)}`, { method: 'POST' });
      setState('released');
    } catch (error) {
      setState(error instanceof ApiError && error.status === 400 ? 'invalid' : 'failed');
    }
  };

  if (state === 'released') {
    return (
      <AuthCard
        icon="success"
        tone="success"
        title="The address is free again"
        lead={<p>The unconfirmed registration was removed. Nobody can use it any more.</p>}
      >
        <Link className="btn btn-primary auth-submit" to="/register">
          Request access yourself
        </Link>
      </AuthCard>
    );
  }

  if (state === 'invalid') {
    return (
      <AuthCard
        icon="warning"
        tone="danger"
        title="This link cannot be used"
        lead={<p>{VERIFY_EMAIL_MESSAGES.invalidHash}</p>}
        footer={
          <p>
            Still a problem? <Link to="/contact">Contact us</Link>
          </p>
        }
      />
    );
  }

  return (
    <AuthCard
      icon="warning"
      title="Release your e-mail address"
      lead={
        <p>
          Someone asked for access with your e-mail address and it waits for confirmation. If it was not you,
          remove that registration: the address is free again at once.
        </p>
      }
      footer={<p>It was you? Use the other link of the e-mail to confirm your address instead.</p>}
    >
      {state === 'failed' && (
        <p className="auth-muted auth-center" role="alert">
          Something went wrong on our side. Please try again in a few minutes.
        </p>
      )}
      <button
        type="button"
        className="btn btn-primary auth-submit"
        disabled={state === 'sending'}
        onClick={() => void release()}
      >
        Release this address
      </button>
    </AuthCard>
  );
}
