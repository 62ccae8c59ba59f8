// `npm test`: the whole suite — types, lint and format, unit and integration tests on PGlite and on
// PostgreSQL, web component tests, then browser tests in Chromium against the built product.
// It ends with a per-category hardening report and then one line "tests: N passed, N failed, N skipped"
// counting every test that ran (always the last line).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const reportDir = fs.mkdtempSync(path.join(os.tmpdir(), 'osint-test-report-'));
const totals = { passed: 0, failed: 0, skipped: 0 };
const failedSteps = [];

function step(name, command, args, env = {}) {
  console.log(`\n▶ ${name}: ${command} ${args.join(' ')}`);
  const started = Date.now();
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } });
  console.log(
    `  ${name} ${result.status === 0 ? 'passed' : 'FAILED'} in ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
  if (result.status !== 0) failedSteps.push(name);
  return result.status === 0;
}

function countVitest(file) {
  if (!fs.existsSync(file)) return;
  const report = JSON.parse(fs.readFileSync(file, 'utf8'));
  totals.passed += report.numPassedTests;
  totals.failed += report.numFailedTests;
  totals.skipped += report.numPendingTests + (report.numTodoTests ?? 0);
  countHardening(report);
}

// The hardening report (issue 8): the cases of each hardening category, found by the top-level describe
// name of the hardening test files ("sessions (postgres)" counts under "sessions"), on both databases.
const HARDENING_FILES =
  /server\/test\/(hardening\/[^/]+|integration\/(property-routes|sessions-hardening|metrics|retention|admin-jobs|face-image-fields|job-takeover|thumbnails|access-rule|billing-events|origin-routing|enumeration|account-tokens|lockout|blocked-domains|attachments)|reports\/non-latin-pdf)\.test\.ts$/;
const HARDENING_CATEGORIES = [
  'property-based routes',
  'uploads',
  'sessions',
  'headers',
  'metrics',
  'retention',
  'admin jobs',
  'image bombs',
  'fair scheduling',
  'face images',
  'job takeover',
  'sitemaps',
  'thumbnails',
  'access rule',
  'billing events',
  'origin',
  'enumeration',
  'tokens',
  'lockout',
  'blocked domains',
  'logs',
  'attachments',
  'non-Latin text in PDFs',
];
const hardening = new Map(HARDENING_CATEGORIES.map((name) => [name, { ran: 0, failed: 0, skipped: 0 }]));

function hardeningCategory(describeName) {
  return HARDENING_CATEGORIES.find(
    (name) =>
      describeName === name || describeName.startsWith(`${name} `) || describeName.startsWith(`${name}:`),
  );
}

function countHardening(report) {
  for (const file of report.testResults ?? []) {
    if (!HARDENING_FILES.test(file.name.replaceAll('\\', '/'))) continue;
    for (const test of file.assertionResults ?? []) {
      const category = hardeningCategory(test.ancestorTitles?.[0] ?? '');
      if (!category) continue;
      const counts = hardening.get(category);
      if (test.status === 'passed') counts.ran += 1;
      else if (test.status === 'failed') {
        counts.ran += 1;
        counts.failed += 1;
      } else counts.skipped += 1;
    }
  }
}

/** The browser test of Admin → Jobs counts under "admin jobs". */
function countHardeningPlaywright(report) {
  const visit = (suite) => {
    for (const spec of suite.specs ?? []) {
      if (!/admin-jobs\.spec\.ts$/.test(spec.file ?? suite.file ?? '')) continue;
      for (const test of spec.tests ?? []) {
        const counts = hardening.get('admin jobs');
        if (test.status === 'skipped') counts.skipped += 1;
        else {
          counts.ran += 1;
          if (test.status === 'unexpected') counts.failed += 1;
        }
      }
    }
    for (const child of suite.suites ?? []) visit(child);
  };
  for (const suite of report.suites ?? []) visit(suite);
}

function printHardening() {
  console.log('\nhardening report (cases ran, failed):');
  for (const [name, counts] of hardening) {
    const skipped = counts.skipped ? `, ${counts.skipped} skipped` : '';
    const verdict = counts.ran === 0 ? 'NOT RUN' : counts.failed === 0 ? 'none failed' : 'FAILURES';
    console.log(
      `  ${name.padEnd(22)} ${String(counts.ran).padStart(4)} ran, ${counts.failed} failed${skipped}  (${verdict})`,
    );
  }
}

function countPlaywright(file) {
  if (!fs.existsSync(file)) return;
  const report = JSON.parse(fs.readFileSync(file, 'utf8'));
  countHardeningPlaywright(report);
  const stats = report.stats;
  totals.passed += stats.expected + stats.flaky;
  totals.failed += stats.unexpected;
  totals.skipped += stats.skipped;
}

for (const project of ['contract', 'server', 'web', 'e2e'])
  step(`typecheck ${project}`, 'npx', ['tsc', '-p', project]);
step('lint', 'npx', ['eslint', '.']);
step('format', 'npx', ['prettier', '--check', '.']);

const vitestReport = path.join(reportDir, 'vitest.json');
step('unit and integration tests', 'npx', [
  'vitest',
  'run',
  '--reporter=default',
  '--reporter=json',
  `--outputFile.json=${vitestReport}`,
]);
countVitest(vitestReport);

if (step('build web app', 'npm', ['run', 'build', '-w', 'web'])) {
  const playwrightReport = path.join(reportDir, 'playwright.json');
  step('browser tests', 'npx', ['playwright', 'test', '-c', 'e2e/playwright.config.ts'], {
    PLAYWRIGHT_JSON_OUTPUT_NAME: playwrightReport,
  });
  countPlaywright(playwrightReport);
}

printHardening();
console.log(`\nfailed steps: ${failedSteps.length ? failedSteps.join(', ') : 'none'}`);
console.log(`tests: ${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
process.exit(failedSteps.length ? 1 : 0);
