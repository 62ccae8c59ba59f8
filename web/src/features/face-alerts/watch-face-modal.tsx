import { DEFAULT_WATCH_DAYS, FACE_ALERT_MESSAGES } from '@osint/contract/face-alerts';
import { useQueryClient } from '@tanstack/react-query';
import { NameDescriptionModal } from '../../components/name-description-modal.tsx';
import { createWatch, FACE_ALERT_KEYS } from './face-alerts-api.ts';

const NAME_MAX_LENGTH = 200;

/** "Watch this face": a name and a note, then the confirmation with a link to the alerts page. */
export function WatchFaceModal({
  searchHash,
  onClose,
}: {
  /** The search (or saved search) whose searched face is watched. */
  searchHash: string;
  onClose: () => void;
}) {
  const queryClient = useQueryClient();
  return (
    <NameDescriptionModal
      title="Watch this face"
      lead={`We compare every newly indexed face with it for ${DEFAULT_WATCH_DAYS} days and tell you by e-mail when it appears somewhere new.`}
      initialName=""
      nameMaxLength={NAME_MAX_LENGTH}
      nameHint="Shown only inside your organization (never in e-mails)"
      validate={(name) => (name.trim() ? undefined : 'Please give the watch a name.')}
      descriptionLabel="Note (optional)"
      descriptionRows={3}
      failure={{ message: FACE_ALERT_MESSAGES.watchFailure, log: 'Watching the face failed' }}
      submitLabel="Watch"
      confirmation={{
        title: 'Watching this face',
        lead: FACE_ALERT_MESSAGES.watchStarted,
        text: 'New sightings appear on the Alerts page; you can mute or end the watch there.',
        link: { to: '/alerts', label: 'Go to Alerts' },
      }}
      onSubmit={async (name, note) => {
        await createWatch({ searchHash, name, note });
        await queryClient.invalidateQueries({ queryKey: FACE_ALERT_KEYS.watches });
      }}
      onClose={onClose}
    />
  );
}
