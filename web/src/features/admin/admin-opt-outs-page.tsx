import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Button } from '../../components/button.tsx';
import { LoadingPlaceholder } from '../../components/loading-placeholder.tsx';
import { useBanner } from '../../components/message-banner.tsx';
import { TextArea, TextInput } from '../../components/text-field.tsx';
import { violationsByField } from '../../lib/api-client.ts';
import { ADMIN_KEYS, adminApi } from './admin-api.ts';
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
        {optOuts.isPending ? (
          <LoadingPlaceholder />
        ) : optOuts.isError ? (
          <div className="admin-empty" role="alert">
            <p className="admin-empty-title">The opt-outs could not be loaded.</p>
            <Button variant="secondary" onClick={() => void optOuts.refetch()}>
              Try again
            </Button>
          </div>
        ) : optOuts.data.length === 0 ? (
          <div className="admin-empty">
            <p className="admin-empty-title">No faces have been opted out.</p>
            <p>Requests from people who want to be removed are added here.</p>
          </div>
        ) : (
          <div className="admin-table-wrap">
            <table className="admin-table">
              <caption className="visually-hidden">Opt-outs, newest first</caption>
              <thead>
                <tr>
                  <th scope="col">#</th>
                  <th scope="col">Reason</th>
                  <th scope="col">Added by</th>
                  <th scope="col">Added</th>
                  <th scope="col">Model</th>
                </tr>
              </thead>
              <tbody>
                {optOuts.data.map((row) => (
                  <tr key={row.id}>
                    <td data-label="#">{row.id}</td>
                    <td data-label="Reason" className="admin-break">
                      {row.reason}
                    </td>
                    <td data-label="Added by" className="admin-break">
                      {row.createdBy ?? <span className="admin-muted">—</span>}
                    </td>
                    <td data-label="Added">
                      <When iso={row.createdAt} withTime />
                    </td>
                    <td data-label="Model" className="admin-code">
                      {row.modelId}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </div>
    </section>
  );
}

function AddOptOutForm() {
  const queryClient = useQueryClient();
  const { showBanner } = useBanner();
  const [faceId, setFaceId] = useState('');
  const [reason, setReason] = useState('');
  const [errors, setErrors] = useState<{ faceId?: string; reason?: string }>({});
  const add = useMutation({
    mutationFn: () => adminApi.addOptOut(Number(faceId.trim()), reason.trim()),
    onSuccess: async (result) => {
      setFaceId('');
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
        faceId:
          fields.faceId ??
          (fields.reason ? undefined : errorText(failure, 'The face could not be opted out.')),
        reason: fields.reason,
      });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const next: typeof errors = {};
    if (!/^\d+$/.test(faceId.trim()) || Number(faceId) < 1)
      next.faceId = 'Enter the number of an indexed face.';
    if (!reason.trim()) next.reason = 'Please give the reason for the opt-out.';
    setErrors(next);
    if (!next.faceId && !next.reason) add.mutate();
  };
  return (
    <form className="card admin-form admin-form--wide" onSubmit={submit} noValidate>
      <h2 className="admin-section-title">Add a face</h2>
      <div className="admin-form-row admin-form-row--id">
        <TextInput
          label="Face id"
          inputMode="numeric"
          value={faceId}
          error={errors.faceId}
          hint="The id of the indexed face to remove."
          onChange={(event) => {
            setFaceId(event.target.value);
            setErrors((e) => ({ ...e, faceId: undefined }));
          }}
        />
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
