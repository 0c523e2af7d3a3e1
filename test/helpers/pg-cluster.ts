/**
 * A PostgreSQL cluster a test owns, on a port of its own: for faults that
 * stop, restart or cut off the whole server, which must never touch the
 * shared cluster on 5432. PostgreSQL refuses to run as root, so as root the
 * cluster's files belong to the `postgres` user and its tools run as that user.
 */
import { execFile } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The newest installed server's binaries (Debian: /usr/lib/postgresql/<major>/bin). */
function binDir(): string {
  const root = '/usr/lib/postgresql';
  const majors = existsSync(root) ? readdirSync(root).sort((a, b) => Number(b) - Number(a)) : [];
  const dir = majors.map((m) => join(root, m, 'bin')).find((d) => existsSync(join(d, 'pg_ctl')));
  if (!dir) throw new Error('no PostgreSQL server binaries under /usr/lib/postgresql');
  return dir;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

export interface OwnCluster {
  port: number;
  /** Its data directory (postmaster.pid names the server's pid while it runs). */
  dataDir: string;
  /** A trust-auth URL for database `postgres` on this cluster. */
  url: string;
  stop(mode?: 'fast' | 'immediate'): Promise<void>;
  start(): Promise<void>;
  /** Stops it for good and removes its files. */
  destroy(): Promise<void>;
}

export async function startOwnCluster(): Promise<OwnCluster> {
  const bin = binDir();
  // Not the suite's temp dir: that one is private to root, and the server runs as `postgres`.
  const dir = mkdtempSync(join('/tmp', 'revloop-pgc-'));
  const data = join(dir, 'data');
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const { stdout } = await run('id', ['-u', 'postgres']);
    const uid = Number(stdout.trim());
    const { stdout: g } = await run('id', ['-g', 'postgres']);
    chownSync(dir, uid, Number(g.trim()));
  }
  const tool = (name: string, args: string[]) =>
    asRoot ? run('runuser', ['-u', 'postgres', '--', join(bin, name), ...args]) : run(join(bin, name), args);
  await tool('initdb', ['-D', data, '-U', 'postgres', '-A', 'trust', '--no-sync', '-E', 'UTF8']);
  const port = await freePort();
  const opts = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`;
  const start = async () => {
    await tool('pg_ctl', ['-D', data, '-o', opts, '-l', join(dir, 'log'), '-w', '-t', '120', 'start']);
  };
  const stop = async (mode: 'fast' | 'immediate' = 'fast') => {
    await tool('pg_ctl', ['-D', data, '-m', mode, '-w', '-t', '120', 'stop']);
  };
  await start();
  return {
    port,
    dataDir: data,
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    stop,
    start,
    destroy: async () => {
      await stop('immediate').catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
