import { createHash, timingSafeEqual } from 'node:crypto';
import { QUEUES } from '../jobs/job-queue.ts';
import { Counter, Histogram, renderGauge } from '../lib/prometheus.ts';
import type { MetricsRepository } from '../repositories/metrics.repository.ts';
import type { FaceIndexService } from './face-index.service.ts';
import type { FaceWatchMatcher } from './face-watch-matcher.ts';

const JOB_STATES = ['QUEUED', 'RUNNING', 'DONE', 'DEAD'] as const;
const CRAWL_STATES = ['QUEUED', 'RUNNING', 'DONE', 'STOPPED', 'FAILED'] as const;
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * GET /api/metrics in the Prometheus text format. Request counts and latencies are this process's own
 * (scrape every API process); queue depths, crawl and index numbers come from the database; the face
 * index size is this process's index.
 */
export class MetricsService {
  private readonly requests = new Counter(
    'osint_http_requests_total',
    'HTTP requests answered, by route and status.',
  );
  private readonly latency = new Histogram(
    'osint_http_request_duration_seconds',
    'Time to answer an HTTP request, by route.',
    LATENCY_BUCKETS,
  );
  private readonly tokenHash: Buffer | undefined;

  constructor(
    private readonly repository: MetricsRepository,
    private readonly faceIndex: FaceIndexService,
    metricsToken: string | undefined,
    private readonly faceAlerts?: Pick<FaceWatchMatcher, 'lagSeconds'>,
  ) {
    this.tokenHash = metricsToken ? sha256(metricsToken) : undefined;
  }

  /**
   * Counts one answered request. `route` is the route's pattern (`/api/saved-search/results/:hash`), so
   * that ids never become label values; requests that matched no route are counted as "unmatched".
   */
  observeRequest(method: string, route: string | undefined, statusCode: number, seconds: number): void {
    const labels = { method, route: route ?? 'unmatched' };
    this.requests.inc({ ...labels, status: String(statusCode) });
    this.latency.observe(labels, seconds);
  }

  /** True for `Authorization: Bearer <METRICS_TOKEN>` when a token is configured (constant-time compare). */
  acceptsToken(authorization: string | undefined): boolean {
    if (!this.tokenHash || !authorization) return false;
    const match = /^Bearer\s+(.+)$/i.exec(authorization.trim());
    return Boolean(match && timingSafeEqual(sha256(match[1]!), this.tokenHash));
  }

  async render(): Promise<string> {
    const [jobs, crawls, crawlTotals, index, faceIndexSize, alertLag] = await Promise.all([
      this.repository.jobCounts(),
      this.repository.crawlCounts(),
      this.repository.crawlTotals(),
      this.repository.indexTotals(),
      this.faceIndex.size(),
      this.faceAlerts?.lagSeconds() ?? 0,
    ]);
    const queues = [...new Set([...Object.values(QUEUES), ...jobs.map((j) => j.queue)])].sort();
    const jobSamples = queues.flatMap((queue) =>
      JOB_STATES.map((state) => ({
        labels: { queue, state },
        value: jobs.find((j) => j.queue === queue && j.status === state)?.count ?? 0,
      })),
    );
    const crawlSamples = CRAWL_STATES.map((state) => ({
      labels: { state },
      value: crawls.find((c) => c.status === state)?.count ?? 0,
    }));
    return (
      [
        this.requests.render(),
        this.latency.render(),
        renderGauge(
          'osint_jobs',
          'Jobs in the queue, by queue and state (DEAD: failed for good).',
          jobSamples,
        ),
        renderGauge('osint_crawls', 'Crawls, by state.', crawlSamples),
        renderGauge('osint_crawl_pages', 'Pages fetched by all crawls so far.', [
          { value: crawlTotals.pages },
        ]),
        renderGauge('osint_crawl_images', 'Images fetched by all crawls so far.', [
          { value: crawlTotals.images },
        ]),
        renderGauge('osint_crawl_faces', 'Faces found by all crawls so far.', [{ value: crawlTotals.faces }]),
        renderGauge('osint_crawl_errors', 'Fetch errors of all crawls so far.', [
          { value: crawlTotals.errors },
        ]),
        renderGauge('osint_index_pages', 'Pages in the web index.', [{ value: index.pages }]),
        renderGauge('osint_index_images', 'Distinct images in the web index.', [{ value: index.images }]),
        renderGauge('osint_index_faces', 'Faces stored in the database.', [{ value: index.faces }]),
        renderGauge('osint_face_index_size', "Faces in this process's search index.", [
          { value: faceIndexSize },
        ]),
        renderGauge(
          'osint_face_alerts_lag_seconds',
          'How long the oldest newly indexed face not yet matched against the face watches has waited (0: caught up).',
          [{ value: Math.round(alertLag * 1000) / 1000 }],
        ),
      ].join('\n') + '\n'
    );
  }
}

function sha256(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}
