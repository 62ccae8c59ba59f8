import { ACCOUNT_DELETION_REDIRECT_SECONDS } from '@osint/contract/constants';
import { isPasswordValid } from '@osint/contract/password';
import {
  accountDeletedMessage,
  CHANGE_PASSWORD_MESSAGES,
  DELETE_ACCOUNT_MESSAGES,
} from '@osint/contract/team';
import { useMutation } from '@tanstack/react-query';
import { useEffect, useState, type FormEvent } from 'react';
import { Button } from '../../components/button.tsx';
import { MessageBanner, useBanner } from '../../components/message-banner.tsx';
import { PasswordChecklist } from '../../components/password-checklist.tsx';
import { TextInput } from '../../components/text-field.tsx';
import { ApiError, violationsByField } from '../../lib/api-client.ts';
import { settings } from './account-api.ts';
import { NewsletterSetting } from './newsletter-setting.tsx';

/** Spec 000 §2: Settings with Change password and Delete Account. */
export function SettingsPanel({
  isOwner,
  onAccountDeleted,
}: {
  isOwner: boolean;
  onAccountDeleted: () => Promise<void>;
}) {
  return (
    <section className="account-settings" aria-labelledby="account-settings-title">
      <h2 id="account-settings-title" className="account-section-title">
        Settings
      </h2>
      <div className="account-settings__grid">
        <ChangePasswordForm />
        <NewsletterSetting />
        <DeleteAccountForm isOwner={isOwner} onDeleted={onAccountDeleted} />
      </div>
    </section>
  );
}

function ChangePasswordForm() {
  const { showBanner } = useBanner();
  const [currentPassword, setCurrentPassword] = useState('');
  const [newPassword, setNewPassword] = useState('');
  const [touched, setTouched] = useState(false);
  const [errors, setErrors] = useState<{ currentPassword?: string; newPassword?: string }>({});
  const change = useMutation({
    mutationFn: () => settings.changePassword(currentPassword, newPassword),
    onSuccess: () => {
      setCurrentPassword('');
      setNewPassword('');
      setTouched(false);
      showBanner({ message: CHANGE_PASSWORD_MESSAGES.success, type: 'success' });
    },
    onError: (error) => {
      setErrors(violationsByField(error));
      showBanner({ message: CHANGE_PASSWORD_MESSAGES.failure, type: 'danger' });
    },
  });
  const valid = isPasswordValid(newPassword);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!currentPassword) {
      setErrors({ currentPassword: CHANGE_PASSWORD_MESSAGES.currentRequired });
      return;
    }
    if (valid) change.mutate();
  };
  return (
    <form
      className="card account-panel"
      onSubmit={submit}
      noValidate
      aria-labelledby="account-password-title"
    >
      <h3 id="account-password-title" className="account-panel__title">
        Change password
      </h3>
      <TextInput
        label="Current password"
        type="password"
        autoComplete="current-password"
        value={currentPassword}
        error={errors.currentPassword}
        onChange={(event) => {
          setCurrentPassword(event.target.value);
          setErrors((e) => ({ ...e, currentPassword: undefined }));
        }}
      />
      <TextInput
        label="New password"
        type="password"
        autoComplete="new-password"
        value={newPassword}
        error={errors.newPassword}
        onFocus={() => setTouched(true)}
        onChange={(event) => {
          setNewPassword(event.target.value);
          setErrors((e) => ({ ...e, newPassword: undefined }));
        }}
        hint={<PasswordChecklist password={newPassword} touched={touched} />}
      />
      <div className="account-actions">
        <Button type="submit" loading={change.isPending} disabled={!valid}>
          Save password
        </Button>
      </div>
    </form>
  );
}

function DeleteAccountForm({ isOwner, onDeleted }: { isOwner: boolean; onDeleted: () => Promise<void> }) {
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string>();
  const [failure, setFailure] = useState<string>();
  const [secondsLeft, setSecondsLeft] = useState<number>();
  const remove = useMutation({
    mutationFn: () => settings.deleteAccount(password),
    onSuccess: () => setSecondsLeft(ACCOUNT_DELETION_REDIRECT_SECONDS),
    onError: (reason) => {
      if (reason instanceof ApiError && reason.status === 403)
        setError(DELETE_ACCOUNT_MESSAGES.wrongPassword);
      else setFailure(DELETE_ACCOUNT_MESSAGES.failure);
    },
  });

  // Spec 000 §4: after deletion, a message says return to login in 10 seconds, then sign-out and login.
  useEffect(() => {
    if (secondsLeft === undefined) return;
    if (secondsLeft === 0) {
      void onDeleted();
      return;
    }
    const timer = setTimeout(() => setSecondsLeft(secondsLeft - 1), 1000);
    return () => clearTimeout(timer);
  }, [secondsLeft, onDeleted]);

  if (secondsLeft !== undefined) {
    return (
      <div className="card account-panel account-deleted" aria-labelledby="account-delete-title">
        <h3 id="account-delete-title" className="account-panel__title">
          Delete Account
        </h3>
        <MessageBanner
          message={{
            message: accountDeletedMessage(ACCOUNT_DELETION_REDIRECT_SECONDS),
            additionalMessage: `Returning to login in ${secondsLeft} s.`,
            type: 'success',
            icon: 'time',
          }}
        />
        <div className="account-actions">
          <Button variant="secondary" onClick={() => setSecondsLeft(0)}>
            Go to login now
          </Button>
        </div>
      </div>
    );
  }

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setFailure(undefined);
    if (!password) {
      setError(DELETE_ACCOUNT_MESSAGES.passwordRequired);
      return;
    }
    remove.mutate();
  };

  return (
    <form
      className="card account-panel account-danger-zone"
      onSubmit={submit}
      noValidate
      aria-labelledby="account-delete-title"
    >
      <h3 id="account-delete-title" className="account-panel__title">
        Delete Account
      </h3>
      {isOwner ? (
        <p className="account-note">{DELETE_ACCOUNT_MESSAGES.ownerNotAllowed}</p>
      ) : (
        <>
          <p className="account-note">
            Your account is deleted together with your saved searches and AI data extractions, and the face
            watches you created end. This cannot be undone.
          </p>
          {failure && <MessageBanner message={{ message: failure, type: 'danger' }} />}
          <TextInput
            label="Current password"
            type="password"
            autoComplete="current-password"
            value={password}
            error={error}
            onChange={(event) => {
              setPassword(event.target.value);
              setError(undefined);
            }}
          />
          <div className="account-actions">
            <Button type="submit" variant="danger" loading={remove.isPending}>
              Delete Account
            </Button>
          </div>
        </>
      )}
    </form>
  );
}
