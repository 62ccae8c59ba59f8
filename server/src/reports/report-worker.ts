import { parentPort } from 'node:worker_threads';
import { renderExtractionReport } from './extraction-report.ts';
import { renderProformaInvoice } from './invoice-pdf.ts';
import {
  fromWire,
  type RenderRequest,
  type ReportJob,
  type ReportWorkerMessage,
} from './report-worker-protocol.ts';
import { renderSavedSearchReport } from './saved-search-report.ts';

// A worker thread that draws PDF reports, off the thread that answers requests: a 1,000-result report
// computes for seconds without yielding. pdf-text.ts keeps each font file's bytes (and the costly parse
// of the CJK fonts) for the life of the module, so a worker reads them once and reuses them for every
// report it draws.

const port = parentPort;
if (!port) throw new Error('report-worker.ts must run in a worker thread');
const post = (message: ReportWorkerMessage, transfer: ArrayBuffer[] = []) =>
  port.postMessage(message, transfer);

function render(job: ReportJob): Promise<Buffer> {
  switch (job.kind) {
    case 'saved-search':
      return renderSavedSearchReport(job.data);
    case 'extraction':
      return renderExtractionReport(job.data);
    case 'invoice':
      return renderProformaInvoice(job.data.order, job.data.issuer);
  }
}

try {
  // A report without results loads the Latin fonts and compiles the layout code before the first real one.
  await renderSavedSearchReport({
    organizationName: 'Warm-up',
    preparedBy: 'warm-up',
    generatedAt: new Date(0),
    restricted: false,
    savedSearch: {
      saved: true,
      name: 'Warm-up',
      description: '',
      type: 'OSINT',
      createdAt: new Date(0),
      image: null,
      resultCount: 0,
    },
    results: [],
  });
  // Jobs arrive one at a time (the pool waits for each answer), so no queue is needed here.
  port.on('message', (request: RenderRequest) => {
    const job = fromWire<ReportJob>(request);
    render(job).then(
      (pdf) => {
        // The PDF's own memory is handed over; a small one may sit in Node's shared pool and is copied.
        const own = pdf.byteOffset === 0 && pdf.byteLength === pdf.buffer.byteLength;
        const bytes = own ? new Uint8Array(pdf.buffer, 0, pdf.byteLength) : new Uint8Array(pdf);
        post({ type: 'result', id: request.id, pdf: bytes }, [bytes.buffer as ArrayBuffer]);
      },
      (err: unknown) =>
        post({ type: 'error', id: request.id, message: err instanceof Error ? err.message : String(err) }),
    );
  });
  post({ type: 'ready' });
} catch (err) {
  post({ type: 'init-error', message: err instanceof Error ? (err.stack ?? err.message) : String(err) });
}
