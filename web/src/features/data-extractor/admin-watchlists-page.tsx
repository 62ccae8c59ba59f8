import {
  WATCHLIST_DEFAULT_NAME,
  WATCHLIST_MAX_UPLOAD_BYTES,
  WATCHLIST_MESSAGES,
  WATCHLIST_NAME_PATTERN,
  type WatchlistImportResult,
  type WatchlistSummary,
} from '@osint/contract/watchlist';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useRef, useState, type FormEvent } from 'react';
import { Button } from '../../components/button.tsx';
import { ConfirmDeleteModal } from '../../components/confirm-delete-modal.tsx';
import { DataTable, type DataTableColumn } from '../../components/data-table.tsx';
import { TextInput } from '../../components/text-field.tsx';
import { ApiError } from '../../lib/api-client.ts';
import { deleteWatchlist, EXTRACTOR_KEYS, fetchWatchlists, importWatchlist } from './data-extractor-api.ts';
import './data-extractor.css';
import { formatDateTime } from '@osint/contract/dates';

const namePattern = new RegExp(WATCHLIST_NAME_PATTERN);
const FORMAT_LABELS = { ftm: 'FollowTheMoney JSON lines', csv: 'Simple CSV' } as const;
const count = new Intl.NumberFormat('en-GB');
const WATCHLIST_COLUMNS: DataTableColumn<WatchlistSummary>[] = [
  { header: 'List', cell: (list) => list.listName },
  { header: 'Format', cell: (list) => FORMAT_LABELS[list.format] },
  { header: 'Entries', cell: (list) => count.format(list.entryCount), numeric: true },
  { header: 'Politicians', cell: (list) => count.format(list.politicianCount), numeric: true },
  { header: 'Sanctions', cell: (list) => count.format(list.sanctionsCount), numeric: true },
  { header: 'Criminal', cell: (list) => count.format(list.criminalCount), numeric: true },
  {
    header: 'Imported',
    cell: (list) => (
      <>
        <time dateTime={list.importedAt}>{formatDateTime(list.importedAt)}</time>
        <span className="extractor-table__by">{list.importedBy ?? 'command line or demo'}</span>
      </>
    ),
  },
];
const counted = (n: number, one: string, many: string) => `${count.format(n)} ${n === 1 ? one : many}`;

/**
 * /admin/watchlists: the lists of politically exposed, sanctioned and wanted people that the AI data
 * extractor matches names against. Upload a file under a list name (the same name replaces the list),
 * see what was imported, delete a list.
 */
export function AdminWatchlistsPage() {
  const queryClient = useQueryClient();
  const lists = useQuery({ queryKey: EXTRACTOR_KEYS.watchlists, queryFn: fetchWatchlists });
  const [deleting, setDeleting] = useState<WatchlistSummary>();
  const [busy, setBusy] = useState(false);
  const [deleteError, setDeleteError] = useState<string>();

  const confirmDelete = async () => {
    if (!deleting) return;
    setBusy(true);
    setDeleteError(undefined);
    try {
      await deleteWatchlist(deleting.listName);
      setDeleting(undefined);
      await queryClient.invalidateQueries({ queryKey: EXTRACTOR_KEYS.watchlists });
    } catch (error) {
      setDeleteError(error instanceof ApiError ? error.message : 'The list could not be deleted.');
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="extractor extractor--admin" aria-labelledby="watchlists-title">
      <header className="extractor__header">
        <div>
          <p className="page__eyebrow">AI Data Extractor</p>
          <h1 className="page__title" id="watchlists-title">
            Watch-lists
          </h1>
          <p className="page__lead">
            Politically exposed, sanctioned and wanted people. The AI data extractor flags a name found on a
            page when it matches an entry of these lists, and shows the entry as the flag’s evidence.
          </p>
        </div>
      </header>

      <ImportForm
        onImported={() => void queryClient.invalidateQueries({ queryKey: EXTRACTOR_KEYS.watchlists })}
      />

      <div className="card extractor-panel">
        <h2 className="extractor-section__title">Imported lists</h2>
        <DataTable
          caption="Imported watch-lists"
          columns={WATCHLIST_COLUMNS}
          rows={lists.data?.lists}
          rowKey={(list) => list.listName}
          loading={lists.isPending}
          error={
            lists.isError && {
              title: 'The watch-lists could not be loaded.',
              onRetry: () => void lists.refetch(),
            }
          }
          empty={{
            title: 'No watch-list has been imported.',
            text: 'Without a list, flags come from the pages’ own words only.',
          }}
          actionsLabel="Actions"
          actions={(list) => (
            <Button
              variant="secondary"
              className="btn-sm"
              aria-label={`Delete ${list.listName}`}
              onClick={() => {
                setDeleteError(undefined);
                setDeleting(list);
              }}
            >
              Delete
            </Button>
          )}
        />
      </div>
      {deleting && (
        <ConfirmDeleteModal
          title="Delete watch-list"
          text={`“${deleting.listName}” and its ${count.format(deleting.entryCount)} entries will be deleted. Extractions made from now on no longer match against it.`}
          busy={busy}
          error={deleteError}
          onConfirm={() => void confirmDelete()}
          onClose={() => setDeleting(undefined)}
        />
      )}
    </section>
  );
}

function ImportForm({ onImported }: { onImported: () => void }) {
  const fileId = useId();
  const fileInput = useRef<HTMLInputElement>(null);
  const [name, setName] = useState(WATCHLIST_DEFAULT_NAME);
  const [file, setFile] = useState<File>();
  const [touched, setTouched] = useState(false);
  const [importing, setImporting] = useState(false);
  const [error, setError] = useState<string>();
  const [result, setResult] = useState<WatchlistImportResult>();
  const nameError = namePattern.test(name) ? undefined : WATCHLIST_MESSAGES.invalidName;
  const fileError = !file
    ? 'Choose a file to import.'
    : file.size > WATCHLIST_MAX_UPLOAD_BYTES
      ? WATCHLIST_MESSAGES.tooLarge
      : undefined;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setTouched(true);
    if (nameError || fileError || !file) return;
    setImporting(true);
    setError(undefined);
    setResult(undefined);
    try {
      setResult(await importWatchlist(name, file));
      setFile(undefined);
      setTouched(false);
      if (fileInput.current) fileInput.current.value = '';
      onImported();
    } catch (failure) {
      setError(failure instanceof ApiError ? failure.message : 'The file could not be imported. Try again.');
    } finally {
      setImporting(false);
    }
  };

  return (
    <div className="card extractor-panel">
      <h2 className="extractor-section__title">Import a list</h2>
      <p className="extractor-panel__lead">
        An OpenSanctions file: FollowTheMoney JSON lines (<code>entities.ftm.json</code>) or the simple CSV (
        <code>targets.simple.csv</code>), at most 50 MB; larger files with{' '}
        <code>npm run watchlist:import</code>. Importing under an existing name replaces that list.
      </p>
      <form className="form extractor-import" onSubmit={submit} noValidate>
        <TextInput
          label="List name"
          value={name}
          onChange={(event) => setName(event.target.value)}
          error={touched || name !== WATCHLIST_DEFAULT_NAME ? nameError : undefined}
          autoComplete="off"
        />
        <div className={`field${touched && fileError ? ' field--invalid' : ''}`}>
          <label className="field__label" htmlFor={fileId}>
            File
          </label>
          <input
            id={fileId}
            ref={fileInput}
            className="input extractor-import__file"
            type="file"
            accept=".json,.jsonl,.ftm,.csv,application/json,text/csv"
            onChange={(event) => setFile(event.target.files?.[0])}
            aria-invalid={touched && fileError ? true : undefined}
          />
          {touched && fileError && (
            <p className="field__error" role="alert">
              {fileError}
            </p>
          )}
        </div>
        <div className="extractor-import__actions">
          <Button type="submit" loading={importing}>
            Import
          </Button>
        </div>
      </form>
      {error && (
        <p className="field__error" role="alert">
          {error}
        </p>
      )}
      {result && (
        <div className="extractor-import__result" role="status" aria-label="Import result">
          <p className="extractor-import__result-title">
            Imported “{result.listName}” ({FORMAT_LABELS[result.format]})
          </p>
          <ul className="extractor-stats">
            <li className="badge badge--success">{counted(result.entryCount, 'entry', 'entries')}</li>
            <li className="badge badge--info">
              {counted(result.politicianCount, 'politician', 'politicians')}
            </li>
            <li className="badge badge--warning">
              {counted(result.sanctionsCount, 'sanctioned', 'sanctioned')}
            </li>
            <li className="badge badge--danger">{counted(result.criminalCount, 'criminal', 'criminal')}</li>
            {result.skippedCount > 0 && (
              <li className="badge">{count.format(result.skippedCount)} unreadable lines skipped</li>
            )}
          </ul>
        </div>
      )}
    </div>
  );
}
