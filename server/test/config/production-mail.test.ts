import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

// No shared disk between machines (issue 18): in production mode (DATABASE_URL) DATA_DIR is machine-local,
// so an outbox there would reach nobody. The real entry points refuse to start without MAIL_URL, before
// opening anything; MAIL_OUTBOX=1 keeps the outbox deliberately (one machine: trials, tests).

const ROOT = path.resolve(import.meta.dirname, '../../..');
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'osint-production-mail-'));
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

const MESSAGE =
  'Production mode (DATABASE_URL is set) sends e-mail through SMTP: set MAIL_URL=smtp://host:port ' +
  '(DATA_DIR is machine-local, so an outbox there would reach nobody).';

function start(entry: string, env: Record<string, string>) {
  const result = spawnSync(process.execPath, ['--import', 'tsx', path.join(ROOT, 'server/src', entry)], {
    cwd: ROOT,
    env: {
      ...process.env,
      DATA_DIR: dataDir,
      DEMO_DATA: '0',
      PORT: '0',
      MAIL_URL: '',
      MAIL_OUTBOX: '',
      ...env,
    },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: result.status, stderr: result.stderr };
}

// The database is on port 1, where nothing listens: a process that went past the check fails differently.
describe('production mode without MAIL_URL', () => {
  for (const entry of ['main.ts', 'worker.ts']) {
    it(`${entry} refuses to start with a clear message`, () => {
      const { status, stderr } = start(entry, { DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' });
      expect(status).toBe(1);
      expect(stderr.trim()).toBe(MESSAGE);
      expect(fs.existsSync(path.join(dataDir, 'outbox'))).toBe(false);
    });
  }

  it('goes past the check with MAIL_URL, or with MAIL_OUTBOX=1 (and then fails to reach the database)', () => {
    const variants: Record<string, string>[] = [{ MAIL_URL: 'smtp://127.0.0.1:1' }, { MAIL_OUTBOX: '1' }];
    for (const env of variants) {
      const { status, stderr } = start('worker.ts', {
        DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none',
        ...env,
      });
      expect(status).toBe(1);
      expect(stderr).not.toContain('MAIL_URL');
      expect(stderr).toMatch(/ECONNREFUSED|connect/i);
    }
  });
});
