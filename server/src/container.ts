import path from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from './config.ts';
import type { Db } from './db/database.ts';
import { JobQueue, QUEUES, SHORT_QUEUES } from './jobs/job-queue.ts';
import { JobRunner } from './jobs/job-runner.ts';
import { RateLimiter } from './lib/rate-limiter.ts';
import { RateLimitRepository } from './repositories/rate-limit.repository.ts';
import { createMailTransport, type MailTransport } from './mail/mail-transport.ts';
import { AdminOrganizationRepository } from './repositories/admin-organization.repository.ts';
import { AuditRepository } from './repositories/audit.repository.ts';
import { createBlobStore } from './lib/blob-store.ts';
import { CrawlFrontierRepository, CrawlRepository } from './repositories/crawl-frontier.repository.ts';
import { BillingPlanRepository } from './repositories/billing-plan.repository.ts';
import { OrderRepository } from './repositories/order.repository.ts';
import { PaymentRepository } from './repositories/payment.repository.ts';
import { SeatRepository } from './repositories/seat.repository.ts';
import { BillingService } from './services/billing.service.ts';
import { cardCheckoutConfigured, FastSpringService } from './services/fastspring.service.ts';
import { JobRepository } from './repositories/job.repository.ts';
import { MetricsRepository } from './repositories/metrics.repository.ts';
import { AdminDashboardRepository } from './repositories/admin-dashboard.repository.ts';
import { AdminDashboardService } from './services/admin-dashboard.service.ts';
import { MetricsService } from './services/metrics.service.ts';
import { AdminJobsService } from './services/admin-jobs.service.ts';
import { RetentionRepository } from './repositories/retention.repository.ts';
import { RetentionService } from './services/retention.service.ts';
import { OrganizationRepository } from './repositories/organization.repository.ts';
import { SessionRepository } from './repositories/session.repository.ts';
import { SupportMessageRepository } from './repositories/support-message.repository.ts';
import { TeamRepository } from './repositories/team.repository.ts';
import { UserTokenRepository } from './repositories/user-token.repository.ts';
import { UserRepository } from './repositories/user.repository.ts';
import { WatchlistRepository } from './repositories/watchlist.repository.ts';
import { WebIndexRepository } from './repositories/web-index.repository.ts';
import { LazyFaceEngine } from './face/lazy-face-engine.ts';
import { SavedSearchRepository } from './repositories/saved-search.repository.ts';
import { DataExtractionRepository } from './repositories/data-extraction.repository.ts';
import { DataExtractorService } from './services/data-extractor.service.ts';
import { ExtractionPipeline } from './services/extraction-pipeline.ts';
import { SearchRepository } from './repositories/search.repository.ts';
import { FaceIndexService } from './services/face-index.service.ts';
import { FaceModelRepository } from './repositories/face-model.repository.ts';
import { FaceModelService } from './services/face-model.service.ts';
import { AppSettingsRepository } from './repositories/app-settings.repository.ts';
import { QueryFaceTokens } from './services/query-face-token.ts';
import { SavedSearchService } from './services/saved-search.service.ts';
import { ReportRenderer } from './services/report-renderer.ts';
import { ImageUrlFetcher } from './services/image-url-fetcher.ts';
import { isSocialMediaUrl, MAX_UPLOAD_BYTES, SearchService } from './services/search.service.ts';
import { MinorGateService } from './services/minor-gate.service.ts';
import { MinorReviewRepository } from './repositories/minor-review.repository.ts';
import { MinorReviewService } from './services/minor-review.service.ts';
import { AccessService } from './services/access.service.ts';
import { AccountSettingsService } from './services/account-settings.service.ts';
import { AccountService } from './services/account.service.ts';
import { AdminOrganizationService } from './services/admin-organization.service.ts';
import { SubscriptionCancelService } from './services/subscription-cancel.service.ts';
import { FastSpringApi } from './billing/fastspring-api.ts';
import { AuditService } from './services/audit.service.ts';
import { TeamService } from './services/team.service.ts';
import { AdminUserService } from './services/admin-user.service.ts';
import { CrawlService } from './services/crawl.service.ts';
import { IndexerService } from './services/indexer.service.ts';
import { MailService } from './services/mail.service.ts';
import { SeedService } from './services/seed.service.ts';
import { SessionService } from './services/session.service.ts';
import { SupportService } from './services/support.service.ts';
import { WatchlistService } from './services/watchlist.service.ts';
import { FaceWatchRepository } from './repositories/face-watch.repository.ts';
import { FaceWatchService } from './services/face-watch.service.ts';
import { SearchRefinementService } from './services/search-refinement.service.ts';
import { FaceWatchMatcher } from './services/face-watch-matcher.ts';
import { TextAnalyzer } from './extractor/analyzer.ts';
import { LlmClient } from './extractor/llm-client.ts';
import { DEFAULT_WIKIPEDIA_URL, WikipediaClient } from './extractor/wikipedia-client.ts';

/** Wires repositories into services once per process; routes and job handlers only see services. */
export function createContainer(config: Config, db: Db, log: FastifyBaseLogger) {
  const repositories = {
    users: new UserRepository(db),
    organizations: new OrganizationRepository(db),
    sessions: new SessionRepository(db),
    tokens: new UserTokenRepository(db),
    plans: new BillingPlanRepository(db),
    orders: new OrderRepository(db),
    payments: new PaymentRepository(db),
    seats: new SeatRepository(db),
    supportMessages: new SupportMessageRepository(db),
    audit: new AuditRepository(db),
    jobs: new JobRepository(db),
    crawls: new CrawlRepository(db),
    crawlFrontier: new CrawlFrontierRepository(db),
    webIndex: new WebIndexRepository(db),
    team: new TeamRepository(db),
    adminOrganizations: new AdminOrganizationRepository(db),
  };
  // Two slots run every queue, one runs only the short ones (mail, alert digests, …): a backlog of
  // extractions or saves, which can hold both general slots for minutes, never delays an invitation or a
  // password reset. Within a queue, organizations take turns (JobRepository.claimNext).
  const jobRunner = new JobRunner(repositories.jobs, log, {
    pollIntervalMs: 1000,
    concurrency: 2,
    reserved: { queues: SHORT_QUEUES, concurrency: 1 },
    staleAfterMs: config.jobStaleAfterMs,
    retryBaseMs: config.jobRetryBaseMs,
  });
  const queue = new JobQueue(repositories.jobs, config.runWorkers ? jobRunner : undefined);
  const mailTransport: MailTransport = createMailTransport({
    mailUrl: config.mailUrl,
    from: config.mailFrom,
    outboxDir: path.join(config.dataDir, 'outbox'),
  });
  const mail = new MailService(queue, mailTransport);
  const sessions = new SessionService(repositories.sessions, config);
  const r = repositories;
  const access = new AccessService(r.plans, r.seats);
  const fastspringApi = config.billing.fastspring.api;
  const subscriptionCancel = new SubscriptionCancelService(
    r.plans,
    r.audit,
    queue,
    fastspringApi ? new FastSpringApi(fastspringApi) : undefined,
  );
  const minorReviewRows = new MinorReviewRepository(db);
  const minorGate = new MinorGateService(r.organizations, r.audit, minorReviewRows);
  // The active descriptor model (face_models) decides what uploads and crawls compute and what the index
  // searches; a reindex switches it under running processes.
  const faceModels = new FaceModelService(new FaceModelRepository(db));
  const faceEngine = new LazyFaceEngine({
    pipeline: () => faceModels.activePipeline(),
    threads: config.faceThreads,
  });
  const faceIndex = new FaceIndexService(
    db,
    config.dataDir,
    config.runWorkers ? 'writer' : 'reader',
    log,
    faceModels,
    undefined,
    config.faceIndex,
    config.faceIndexPublish,
  );
  const auditLog = new AuditService(r.audit, access);
  const queryFaces = new QueryFaceTokens(new AppSettingsRepository(db), config.queryFaceKey);
  const minorReviews = new MinorReviewService(
    minorReviewRows,
    queryFaces,
    access,
    minorGate,
    r.audit,
    mail,
    r.team,
    r.seats,
    config.publicUrl,
  );
  // Thumbnails live in the database, or in the object store when OBJECT_STORE_URL is set: every process,
  // on any machine, serves what the worker stored.
  const blobs = createBlobStore(config.objectStore, db);
  const indexer = new IndexerService(r.webIndex, faceEngine, blobs, r.audit, log, queryFaces);
  const watchlists = new WatchlistService(new WatchlistRepository(db), r.audit);
  const wikipedia = new WikipediaClient({ baseUrl: config.wikipediaUrl ?? DEFAULT_WIKIPEDIA_URL });
  const extractionAnalyzer = new TextAnalyzer({
    watchlists,
    wikipedia,
    llm: config.llm.url
      ? new LlmClient({ url: config.llm.url, model: config.llm.model, apiKey: config.llm.apiKey })
      : undefined,
  });
  const extractions = new DataExtractionRepository(db);
  const extractionPipeline = new ExtractionPipeline(
    extractions,
    faceIndex,
    extractionAnalyzer,
    mail,
    config,
    log,
    blobs,
    minorGate,
    new SearchRepository(db),
  );
  // PDF reports of every service, drawn in worker threads that start with the first report.
  const reports = new ReportRenderer(config.reports, log);
  const search = new SearchService(
    faceEngine,
    faceIndex,
    queryFaces,
    new SearchRepository(db),
    access,
    config.socialMediaHosts,
    blobs,
    r.audit,
    r.organizations,
    minorGate,
    minorReviews,
    new ImageUrlFetcher(config, r.crawls, MAX_UPLOAD_BYTES),
    reports,
  );
  const faceWatchRepository = new FaceWatchRepository(db);
  const faceAlerts = new FaceWatchMatcher(faceWatchRepository, queryFaces, mail, log, {
    publicUrl: config.publicUrl,
    isSocialMedia: (url: string) => isSocialMediaUrl(url, config.socialMediaHosts),
    rederive: { engine: faceEngine, models: faceModels, indexedFaces: new SearchRepository(db) },
  });
  const services = {
    sessions,
    mail,
    access,
    account: new AccountService(
      db,
      config,
      r.users,
      r.organizations,
      r.tokens,
      r.plans,
      r.audit,
      sessions,
      mail,
      access,
      queue,
      r.team,
    ),
    adminUsers: new AdminUserService(
      db,
      config,
      r.users,
      r.tokens,
      r.audit,
      sessions,
      mail,
      r.organizations,
      r.adminOrganizations,
      auditLog,
      r.seats,
    ),
    team: new TeamService(
      config,
      r.team,
      r.users,
      r.organizations,
      r.tokens,
      r.audit,
      sessions,
      mail,
      r.seats,
    ),
    accountSettings: new AccountSettingsService(r.users, r.team, r.audit, sessions),
    adminOrganizations: new AdminOrganizationService(
      r.organizations,
      r.team,
      r.plans,
      r.adminOrganizations,
      r.audit,
      r.orders,
      mail,
      config.publicUrl,
      subscriptionCancel,
      r.seats,
    ),
    auditLog,
    support: new SupportService(config, r.supportMessages, mailTransport, queue),
    seed: new SeedService(db, config),
    rateLimiter: new RateLimiter(config.rateLimit.enabled, new RateLimitRepository(db)),
    indexer,
    crawl: new CrawlService(config, r.crawls, r.crawlFrontier, indexer, queue, r.audit, log),
    faceModels,
    faceEngine,
    reports,
    faceIndex,
    queryFaces,
    watchlists,
    wikipedia,
    extractionAnalyzer,
    billing: new BillingService(
      db,
      config,
      r.plans,
      r.orders,
      r.payments,
      r.seats,
      r.organizations,
      r.audit,
      mail,
      queue,
      log,
      reports,
    ),
    fastspring: new FastSpringService(db, config, r.seats, mail, log),
    savedSearches: new SavedSearchService(
      new SavedSearchRepository(db),
      new SearchRepository(db),
      access,
      queue,
      r.audit,
      blobs,
      minorGate,
      reports,
    ),
    dataExtractor: new DataExtractorService(
      extractions,
      new SearchRepository(db),
      access,
      queue,
      r.audit,
      extractionPipeline,
      minorGate,
      blobs,
      reports,
    ),
    extractionPipeline,
    search,
    searchRefinement: new SearchRefinementService(
      new SearchRepository(db),
      queryFaces,
      faceEngine,
      access,
      minorGate,
      search,
    ),
    faceWatches: new FaceWatchService(
      faceWatchRepository,
      new SearchRepository(db),
      new SavedSearchRepository(db),
      queryFaces,
      faceEngine,
      access,
      minorGate,
      r.audit,
      search,
    ),
    faceAlerts,
    minorReviews,
    metrics: new MetricsService(new MetricsRepository(db), faceIndex, config.metricsToken, faceAlerts),
    adminDashboard: new AdminDashboardService(
      new AdminDashboardRepository(db),
      new MetricsRepository(db),
      cardCheckoutConfigured(config),
    ),
    adminJobs: new AdminJobsService(repositories.jobs, queue, repositories.audit),
    retention: new RetentionService(
      new RetentionRepository(db),
      queue,
      repositories.audit,
      log,
      new AppSettingsRepository(db),
      minorReviews,
    ),
  };
  jobRunner.register(QUEUES.sendMail, (payload) => mail.deliver(payload));
  jobRunner.register(QUEUES.passwordReset, (payload) => services.account.runPasswordResetJob(payload));
  jobRunner.register(QUEUES.verificationResend, (payload) =>
    services.account.runVerificationResendJob(payload),
  );
  jobRunner.register(QUEUES.forwardSupportMessage, (payload) => services.support.forward(payload));
  jobRunner.register(QUEUES.runCrawl, (payload) => services.crawl.runJob(payload));
  jobRunner.register(QUEUES.saveSearch, (payload) => services.savedSearches.runSaveJob(payload));
  jobRunner.register(QUEUES.billingPlanSweep, () => services.billing.runPlanSweepJob());
  jobRunner.register(QUEUES.cancelSubscription, (payload) => subscriptionCancel.runJob(payload));
  jobRunner.register(QUEUES.retentionSweep, () => services.retention.runSweepJob());
  jobRunner.register(QUEUES.runExtraction, (payload) => services.extractionPipeline.runJob(payload));
  jobRunner.register(QUEUES.faceAlertDigest, (payload) => faceAlerts.runDigestJob(payload));
  return { repositories, services, jobRunner, queue, mailTransport, blobs };
}

export type Container = ReturnType<typeof createContainer>;
export type Services = Container['services'];
