import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Button } from '../../components/button.tsx';
import { DataTable, type DataTableColumn } from '../../components/data-table.tsx';
import { useBanner } from '../../components/message-banner.tsx';
import { TextArea, TextInput } from '../../components/text-field.tsx';
import { type DetectedFace, tooSmallFacesMessage } from '@osint/contract/search';
import { violationsByField } from '../../lib/api-client.ts';
import { fileToBase64 } from '../../lib/file-data.ts';
import { ADMIN_KEYS, adminApi, type OptOutRow } from './admin-api.ts';
import { AdminHeader, errorText, When } from './admin-ui.tsx';
import './admin.css';

const MAX_REASON = 1000;

/** /admin/opt-outs: faces that must never be indexed or found, each with the reason it was added. */
export function AdminOptOutsPage() {
  const optOuts = useQuery({ queryKey: ADMIN_KEYS.optOuts, queryFn: adminApi.optOuts });
  return (
    <section className="admin-page" aria-labelledby="admin-opt-outs-title">
      <AdminHeader
        eyebrow="Index"
        title={<span id="admin-opt-outs-title">Opt-outs</span>}
        lead="A face on this list is removed from the index with every sighting of the same person, and never indexed again by later crawls."
      />
      <AddOptOutForm />
      <div className="card admin-panel">
        <h2 className="admin-section-title admin-panel-heading">Opt-out list</h2>
        <DataTable
          caption="Opt-outs, newest first"
          columns={optOutColumns}
          rows={optOuts.data}
          rowKey={(row) => row.id}
          loading={optOuts.isPending}
          error={
            optOuts.isError && {
              title: 'The opt-outs could not be loaded.',
              onRetry: () => void optOuts.refetch(),
            }
          }
          empty={{
            title: 'No faces have been opted out.',
            text: 'Requests from people who want to be removed are added here.',
          }}
        />
      </div>
    </section>
  );
}

const optOutColumns: DataTableColumn<OptOutRow>[] = [
  { header: '#', cell: (row) => row.id },
  { header: 'Reason', className: 'admin-break', cell: (row) => row.reason },
  {
    header: 'Added by',
    className: 'admin-break',
    cell: (row) => row.createdBy ?? <span className="admin-muted">—</span>,
  },
  { header: 'Added', cell: (row) => <When iso={row.createdAt} withTime /> },
  { header: 'Model', className: 'admin-code', cell: (row) => row.modelId },
];

type FaceSource = 'photo' | 'faceId';

/**
 * Adds an opt-out. A person asking to be removed usually sends a photo: the admin uploads it and picks
 * the face; an indexed face can also be named by its id.
 */
function AddOptOutForm() {
  const queryClient = useQueryClient();
  const { showBanner } = useBanner();
  const [source, setSource] = useState<FaceSource>('photo');
  const [faceId, setFaceId] = useState('');
  const [faces, setFaces] = useState<DetectedFace[]>([]);
  const [faceHash, setFaceHash] = useState<string>();
  const [reason, setReason] = useState('');
  const [errors, setErrors] = useState<{ face?: string; reason?: string }>({});
  const [fileKey, setFileKey] = useState(0);
  const detect = useMutation({
    mutationFn: async (file: File) => adminApi.detectFaces(await fileToBase64(file)),
    onSuccess: (answer) => {
      setFaces(answer.faces);
      setFaceHash(answer.faces.length === 1 ? answer.faces[0]!.hash : undefined);
      setErrors((e) => ({
        ...e,
        face:
          answer.faces.length === 0
            ? `No face of at least ${answer.minFaceSize}×${answer.minFaceSize} pixels was found in this photo.${
                answer.smallFaceCount > 0 ? ` ${tooSmallFacesMessage(answer)}` : ''
              }`
            : undefined,
      }));
    },
    onError: (failure) => {
      setFaces([]);
      setFaceHash(undefined);
      setErrors((e) => ({ ...e, face: errorText(failure, 'The photo could not be read.') }));
    },
  });
  const add = useMutation({
    mutationFn: () =>
      adminApi.addOptOut(
        source === 'photo' ? { faceHash: faceHash! } : { faceId: Number(faceId.trim()) },
        reason.trim(),
      ),
    onSuccess: async (result) => {
      setFaceId('');
      setFaces([]);
      setFaceHash(undefined);
      setFileKey((k) => k + 1);
      setReason('');
      showBanner({
        message: 'The face has been opted out.',
        additionalMessage: `${result.removedFaces} indexed ${result.removedFaces === 1 ? 'face was' : 'faces were'} removed from the index.`,
        type: 'success',
      });
      await queryClient.invalidateQueries({ queryKey: ADMIN_KEYS.optOuts });
    },
    onError: (failure) => {
      const fields = violationsByField(failure);
      setErrors({
        face:
          fields.faceId ??
          fields.faceHash ??
          (fields.reason ? undefined : errorText(failure, 'The face could not be opted out.')),
        reason: fields.reason,
      });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const next: typeof errors = {};
    if (source === 'faceId' && (!/^\d+$/.test(faceId.trim()) || Number(faceId) < 1))
      next.face = 'Enter the number of an indexed face.';
    if (source === 'photo' && !faceHash)
      next.face = faces.length > 1 ? 'Choose the face to opt out.' : 'Upload a photo of the person.';
    if (!reason.trim()) next.reason = 'Please give the reason for the opt-out.';
    setErrors(next);
    if (!next.face && !next.reason) add.mutate();
  };
  return (
    <form className="card admin-form admin-form--wide" onSubmit={submit} noValidate>
      <h2 className="admin-section-title">Add a face</h2>
      <fieldset className="admin-choice">
        <legend className="visually-hidden">How to name the face</legend>
        {(
          [
            ['photo', 'From a photo'],
            ['faceId', 'By face id'],
          ] as const
        ).map(([value, label]) => (
          <label key={value} className="admin-choice-option">
            <input
              type="radio"
              name="opt-out-source"
              value={value}
              checked={source === value}
              onChange={() => {
                setSource(value);
                setErrors((e) => ({ ...e, face: undefined }));
              }}
            />
            {label}
          </label>
        ))}
      </fieldset>
      <div className="admin-form-row admin-form-row--id">
        {source === 'photo' ? (
          <div className="field">
            <label className="field__label" htmlFor="opt-out-photo">
              Photo of the person
            </label>
            <input
              key={fileKey}
              id="opt-out-photo"
              className="input"
              type="file"
              accept="image/jpeg,image/png,image/bmp,image/tiff"
              aria-describedby="opt-out-photo-hint"
              aria-invalid={errors.face ? true : undefined}
              onChange={(event) => {
                const file = event.target.files?.[0];
                setErrors((e) => ({ ...e, face: undefined }));
                if (file) detect.mutate(file);
              }}
            />
            <p id="opt-out-photo-hint" className="field__hint">
              {detect.isPending
                ? 'Looking for faces…'
                : 'JPG, PNG, BMP or TIFF, at most 1.5 MB. The photo is not stored.'}
            </p>
            {faces.length > 0 && (
              <div className="admin-face-choices" role="radiogroup" aria-label="Face to opt out">
                {faces.map((face, index) => (
                  <label key={face.hash} className="admin-face-choice">
                    <input
                      type="radio"
                      name="opt-out-face"
                      checked={faceHash === face.hash}
                      onChange={() => {
                        setFaceHash(face.hash);
                        setErrors((e) => ({ ...e, face: undefined }));
                      }}
                    />
                    <img src={`data:image/jpeg;base64,${face.base64}`} alt={`Face ${index + 1}`} />
                  </label>
                ))}
              </div>
            )}
            {errors.face && (
              <p className="field__error" role="alert">
                {errors.face}
              </p>
            )}
          </div>
        ) : (
          <TextInput
            label="Face id"
            inputMode="numeric"
            value={faceId}
            error={errors.face}
            hint="The id of the indexed face to remove."
            onChange={(event) => {
              setFaceId(event.target.value);
              setErrors((e) => ({ ...e, face: undefined }));
            }}
          />
        )}
        <TextArea
          label="Reason"
          rows={2}
          maxLength={MAX_REASON}
          value={reason}
          error={errors.reason}
          onChange={(event) => {
            setReason(event.target.value);
            setErrors((e) => ({ ...e, reason: undefined }));
          }}
        />
      </div>
      <div className="admin-form-actions">
        <Button type="submit" loading={add.isPending}>
          Opt out this face
        </Button>
      </div>
    </form>
  );
}
