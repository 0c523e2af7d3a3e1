import { resolve } from 'node:path';
import { UsageError } from '../../core/errors.js';
import { createGit } from '../../git/index.js';
import { openRepoStore } from '../../loop/compose.js';
import { loadEvalReports } from '../../web/eval-reports.js';
import { startUi } from '../../web/start.js';
import type { Command } from '../io.js';

interface Opts {
  repo?: string;
  store?: string;
  port?: string;
  host?: string;
  eval?: string;
}

/** `revloop ui`: serves the dashboard until SIGINT/SIGTERM; opens no browser. */
const ui: Command<Opts> = async (_args, opts, io) => {
  const port = Number(opts.port ?? '7357');
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new UsageError(`--port: expected an integer from 0 to 65535, got ${JSON.stringify(opts.port)}`);
  // Read before anything opens: a file that is not an eval report is the user's input, exit 2.
  const evalReports = opts.eval ? loadEvalReports(resolve(io.cwd, opts.eval)) : null;
  const git = createGit();
  const root = await git.root(resolve(io.cwd, opts.repo ?? '.'));
  const store = await openRepoStore(root, opts.store, io.env);
  try {
    const running = await startUi({
      store,
      repoRoot: root,
      host: opts.host ?? '127.0.0.1',
      port,
      git,
      evalReports,
      env: io.env,
    });
    io.stdout(`revloop ui: ${running.url}\n`);
    if (evalReports)
      io.stdout(`revloop ui: ${evalReports.list.length} eval report(s) at ${running.url}eval\n`);
    if (!io.stopSignal.aborted)
      await new Promise<void>((done) =>
        io.stopSignal.addEventListener('abort', () => done(), { once: true }),
      );
    await running.close();
    return 0;
  } finally {
    await store.close();
  }
};

export default ui;
