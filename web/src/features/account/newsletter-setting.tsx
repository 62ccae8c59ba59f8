import { NEWSLETTER_MESSAGES } from '@osint/contract/constants';
import { useMutation } from '@tanstack/react-query';
import { Button } from '../../components/button.tsx';
import { useBanner } from '../../components/message-banner.tsx';
import { api } from '../../lib/api-client.ts';
import { useSession } from '../../lib/session.tsx';

/** Settings → Newsletter: the e-mails sent when AI data extractor analyses complete; on or off. */
export function NewsletterSetting() {
  const { session, refresh } = useSession();
  const { showBanner } = useBanner();
  const subscribed = session?.user.newsletter ?? false;
  const change = useMutation({
    mutationFn: (next: boolean) =>
      api('/user/subscribe_newsletter', { method: 'POST', body: { subscribed: next } }),
    onSuccess: async (_answer, next) => {
      await refresh();
      showBanner({
        message: next ? NEWSLETTER_MESSAGES.success : NEWSLETTER_MESSAGES.unsubscribed,
        type: 'success',
        icon: 'email',
      });
    },
    onError: (_error, next) =>
      showBanner({
        message: next ? NEWSLETTER_MESSAGES.failure : NEWSLETTER_MESSAGES.unsubscribeFailure,
        type: 'danger',
      }),
  });
  return (
    <div className="card account-panel" aria-labelledby="account-newsletter-title">
      <h3 id="account-newsletter-title" className="account-panel__title">
        Newsletter
      </h3>
      <p className="account-note" data-testid="newsletter-state">
        {subscribed
          ? 'You are subscribed: we e-mail you when your organization’s AI data extractor analyses are complete.'
          : 'You are not subscribed. Subscribe to be e-mailed when your organization’s AI data extractor analyses are complete.'}
      </p>
      <div className="account-actions">
        <Button
          variant={subscribed ? 'secondary' : 'primary'}
          loading={change.isPending}
          onClick={() => change.mutate(!subscribed)}
        >
          {subscribed ? 'Unsubscribe' : 'Subscribe'}
        </Button>
      </div>
    </div>
  );
}
