import { defineConfig } from 'vitest/config';

// Two tiers run by `npm test`: server tests (unit and integration on PGlite and, when TEST_DATABASE_URL
// is set, on a PostgreSQL server) and web component tests in jsdom.
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'server',
          include: ['server/test/**/*.test.ts'],
          environment: 'node',
          testTimeout: 60_000,
          hookTimeout: 120_000,
          pool: 'forks',
        },
      },
      {
        esbuild: { jsx: 'automatic' },
        test: {
          name: 'web',
          include: ['web/test/**/*.test.{ts,tsx}'],
          environment: 'jsdom',
        },
      },
    ],
  },
});
