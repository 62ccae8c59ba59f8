import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

const serverTest = {
  environment: 'node' as const,
  testTimeout: 60_000,
  hookTimeout: 120_000,
  pool: 'forks' as const,
  // The server's test files share their worker process's module cache instead of importing the whole
  // server again for each file (a third of the suite's time). Each file builds its own app and database;
  // a file that changes process.env puts it back when it ends.
  isolate: false,
};

// Three projects run by `npm test`: every server test on PGlite; the integration tests again on a real
// PostgreSQL server (TEST_DATABASE_URL, or a throwaway cluster the global setup starts); web component
// tests in jsdom.
export default defineConfig({
  test: {
    // Two test files at a time even on a 2-core machine (vitest's default there is one): most of a server
    // test file's time is spent waiting for the processes, servers, workers and databases it drives.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    projects: [
      { test: { name: 'server', include: ['server/test/**/*.test.ts'], ...serverTest } },
      {
        test: {
          name: 'server-postgres',
          include: ['server/test/integration/**/*.test.ts'],
          env: { TEST_DB: 'postgres' },
          globalSetup: ['server/test/support/postgres-global-setup.ts'],
          ...serverTest,
        },
      },
      {
        esbuild: { jsx: 'automatic' },
        test: {
          name: 'web',
          include: ['web/test/**/*.test.{ts,tsx}'],
          environment: 'jsdom',
          setupFiles: ['web/test/setup.ts'],
          testTimeout: 20_000,
        },
      },
    ],
  },
});
