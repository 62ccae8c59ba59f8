import { startThrowawayPostgres } from './postgres-server.ts';

/** Vitest global setup of the PostgreSQL project: use TEST_DATABASE_URL, or start a throwaway server. */
export default async function setup(): Promise<() => void> {
  if (process.env.TEST_DATABASE_URL) return () => undefined;
  const server = await startThrowawayPostgres();
  process.env.TEST_DATABASE_URL = server.url;
  return () => server.stop();
}
