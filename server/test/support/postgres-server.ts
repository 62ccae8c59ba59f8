import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

const PG_BIN_DIRS = [
  '/usr/lib/postgresql/17/bin',
  '/usr/lib/postgresql/16/bin',
  '/usr/lib/postgresql/15/bin',
];

export function findPostgresBinaries(): string | undefined {
  return PG_BIN_DIRS.find((dir) => fs.existsSync(path.join(dir, 'initdb')));
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

/**
 * A throwaway PostgreSQL cluster in a temporary folder on a free loopback port, trusting local
 * connections. As root, the server runs as the `postgres` system user (PostgreSQL refuses root).
 */
export interface ThrowawayPostgres {
  url: string;
  stop: () => void;
  /** Stops the server (fast shutdown: every connection is cut), keeping its files (fault tests). */
  halt: () => void;
  /** Starts the stopped server again on the same port. */
  resume: () => Promise<void>;
}

export async function startThrowawayPostgres(): Promise<ThrowawayPostgres> {
  const bin = findPostgresBinaries();
  if (!bin) throw new Error('PostgreSQL server binaries not found (apt-get install postgresql).');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'osint-pg-'));
  const port = await freePort();
  const asRoot = process.getuid?.() === 0;
  const run = (cmd: string, args: string[]) =>
    asRoot
      ? execFileSync('runuser', ['-u', 'postgres', '--', cmd, ...args], { stdio: 'pipe' })
      : execFileSync(cmd, args, { stdio: 'pipe' });
  if (asRoot) execFileSync('chown', ['postgres:postgres', dir]);
  const dataDir = path.join(dir, 'data');
  run(path.join(bin, 'initdb'), ['-D', dataDir, '-U', 'postgres', '-A', 'trust', '--no-sync', '-E', 'UTF8']);
  const args = [
    '-D',
    dataDir,
    '-p',
    String(port),
    '-h',
    '127.0.0.1',
    '-k',
    dir,
    '-c',
    'fsync=off',
    '-c',
    'max_connections=200',
  ];
  let child = launch();
  function launch() {
    const started = asRoot
      ? spawn('runuser', ['-u', 'postgres', '--', path.join(bin!, 'postgres'), ...args], { stdio: 'ignore' })
      : spawn(path.join(bin!, 'postgres'), args, { stdio: 'ignore' });
    started.unref();
    return started;
  }
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  await waitUntilReady(port);
  return {
    url,
    stop: () => {
      try {
        run(path.join(bin, 'pg_ctl'), ['-D', dataDir, 'stop', '-m', 'fast', '-w']);
      } catch {
        child.kill('SIGKILL');
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
    halt: () => {
      run(path.join(bin, 'pg_ctl'), ['-D', dataDir, 'stop', '-m', 'fast', '-w']);
    },
    resume: async () => {
      child = launch();
      await waitUntilReady(port);
    },
  };
}

async function waitUntilReady(port: number): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const ready = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => {
        socket.end();
        resolve(true);
      });
      socket.on('error', () => resolve(false));
    });
    if (ready) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  // Accepting TCP is not yet accepting queries; give the startup a moment to finish.
  await new Promise((r) => setTimeout(r, 300));
}
