import { VERIFY_EMAIL_MESSAGES } from '@osint/contract/constants';
import { useState } from 'react';
import type { BannerMessage } from '../../components/message-banner.tsx';
import { api, ApiError } from '../../lib/api-client.ts';

/** "Resend e-mail" (spec 000 §4): a new confirmation link to the address, and the message to show. */
export function useResendConfirmation(mail: string) {
  const [resending, setResending] = useState(false);
  const [notice, setNotice] = useState<BannerMessage>();
  const resend = async () => {
    setResending(true);
    setNotice(undefined);
    try {
      await api('/user/resend-verification', { method: 'POST', body: { mail } });
      setNotice({ message: VERIFY_EMAIL_MESSAGES.resendSuccess, type: 'success', icon: 'email' });
    } catch (error) {
      // The rate limit's answer says when to try again; other failures get the general message only.
      const detail = error instanceof ApiError && error.status === 429 ? error.message : undefined;
      setNotice({
        message: VERIFY_EMAIL_MESSAGES.resendFailure,
        type: 'danger',
        ...(detail ? { additionalMessage: detail } : {}),
      });
    } finally {
      setResending(false);
    }
  };
  return { resending, notice, resend };
}
