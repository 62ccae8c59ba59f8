import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATA_DIR_LOCK_FILE } from '../../src/lib/data-dir-lock.ts';

// `npm run crawl` refuses, with a message that says what to do, to open an embedded database the server
// holds, and refuses bad arguments before touching anything. (Crawling itself is the same service the
// job runs, tested in crawl-indexer.test.ts.)

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../../..');
let dataDir: string;

beforeAll(async () => {
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'osint-cli-'));
});
afterAll(() => fs.rm(dataDir, { recursive: true, force: true }));

async function crawlCli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(
      process.execPath,
      ['--import', 'tsx', 'server/src/cli/crawl.ts', ...args],
      {
        cwd: ROOT,
        env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '' },
        timeout: 30_000,
      },
    );
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failure = error as { code: number; stdout: string; stderr: string };
    return { code: failure.code, stdout: failure.stdout, stderr: failure.stderr };
  }
}

describe('npm run crawl', () => {
  it('says the server is running when a live server holds DATA_DIR', async () => {
    // This test process plays the running server.
    const lock = JSON.stringify({ pid: process.pid, role: 'server', since: new Date().toISOString() });
    await fs.writeFile(path.join(dataDir, DATA_DIR_LOCK_FILE), lock);
    const result = await crawlCli(['https://example.org/']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('The server is running');
    expect(result.stderr).toContain('use POST /api/admin/crawl or the admin page instead');
    expect(result.stderr).not.toMatch(/\n\s+at /); // a message, not a stack trace
    await expect(fs.readFile(path.join(dataDir, DATA_DIR_LOCK_FILE), 'utf8')).resolves.toBe(lock);
    await fs.rm(path.join(dataDir, DATA_DIR_LOCK_FILE));
  });

  it('prints its usage without arguments and refuses unknown options', async () => {
    const bare = await crawlCli([]);
    expect(bare.code).toBe(2);
    expect(bare.stdout).toContain('Usage: npm run crawl -- <url…>');
    const unknown = await crawlCli(['--deep']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('Usage:');
  });
});
