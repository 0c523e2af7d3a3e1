import { existsSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { UsageError } from '../../core/errors.js';
import { isTerminal } from '../../core/types.js';
import { createGit } from '../../git/index.js';
import { sha256 } from '../../io/hash.js';
import { sweepTempFiles } from '../../io/temp-sweep.js';
import { openRepoStore, workingTreeConfig } from '../../loop/compose.js';
import { sweepPool } from '../../pool/gc.js';
import { commonGitDir, poolDir } from '../../pool/location.js';
import type { Git } from '../../ports/git.js';
import { type Command, printJson } from '../io.js';

interface Opts {
  repo?: string;
  store?: string;
  json?: boolean;
}

/**
 * Removes the repository's pool checkouts no live run holds (the default pool
 * and the one the working tree's config names), the checkouts of their own
 * that runs now ended left in the temp dir, and the temp files that writers
 * killed mid-write left in the state dir (a prompt, a record: io/temp-sweep.ts).
 * Exit 0; 2 when not in a repository.
 */
const gc: Command<Opts> = async (_args, opts, io) => {
  const git = createGit();
  const root = await git.root(resolve(io.cwd, opts.repo ?? '.'));
  const common = commonGitDir(root);
  if (!common) throw new UsageError(`${root} has no .git to find its pool by`);
  const configured = (workingTreeConfig(root)?.pool as { dir?: unknown } | undefined)?.dir;
  const pools = new Set([poolDir(common, undefined, root)]);
  if (typeof configured === 'string' && configured) pools.add(poolDir(common, configured, root));
  const sweeps = [...pools].map((p) => sweepPool(common, p));
  const own = await sweepOwnCheckouts(git, root, opts, io.env);
  const removed = [...sweeps.flatMap((s) => s.removed), ...own.removed];
  const held = [...sweeps.flatMap((s) => s.held), ...own.held];
  const tempFiles = sweepTempFiles(join(root, '.revloop'));
  if (opts.json) printJson(io, { pools: [...pools], removed, held, tempFiles });
  else {
    for (const d of removed) io.stdout(`removed ${d}\n`);
    for (const d of held) io.stdout(`kept ${d} (a live run holds it)\n`);
    for (const t of tempFiles) io.stdout(`removed ${t.path} (left by process ${t.pid}, killed mid-write)\n`);
    const temps = tempFiles.length > 0 ? `, ${tempFiles.length} temp file(s) of killed writers removed` : '';
    io.stdout(`${removed.length} removed, ${held.length} held${temps}\n`);
  }
  return 0;
};

/** Checkouts outside the pool (`<tmp>/revloop-worktrees/<repo>-<run>-<token>`) whose run has ended or is unknown. */
async function sweepOwnCheckouts(
  git: Git,
  root: string,
  opts: Opts,
  env: NodeJS.ProcessEnv,
): Promise<{ removed: string[]; held: string[] }> {
  const dir = join(tmpdir(), 'revloop-worktrees');
  const prefix = `${sha256(root).slice(0, 10)}-`;
  const mine = existsSync(dir) ? readdirSync(dir).filter((e) => e.startsWith(prefix)) : [];
  const out = { removed: [] as string[], held: [] as string[] };
  if (mine.length === 0) return out;
  const store = await openRepoStore(root, opts.store, env, { readonly: true });
  try {
    for (const name of mine) {
      const runId = name.slice(prefix.length).replace(/-\d+$/, '');
      const wt = join(dir, name);
      const run = await store.getRun(runId);
      if (run && !isTerminal(run.status)) {
        out.held.push(wt);
        continue;
      }
      await git.removeWorktree(root, wt);
      out.removed.push(wt);
    }
  } finally {
    await store.close();
  }
  return out;
}

export default gc;
