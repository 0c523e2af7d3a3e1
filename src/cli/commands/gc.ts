import { existsSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { UsageError } from '../../core/errors.js';
import { isTerminal } from '../../core/types.js';
import { commonGitDir } from '../../git/dot-git.js';
import { forgetImports } from '../../git/import-refs.js';
import { createGit } from '../../git/index.js';
import { sha256 } from '../../io/hash.js';
import { type PrunedPrompts, prunePrompts } from '../../io/prompt-retention.js';
import { sweepTempFiles } from '../../io/temp-sweep.js';
import { sweepJudgeTrees } from '../../loop/checkout/judge-tree.js';
import { sweepPool } from '../../loop/checkout/pool/gc.js';
import { poolDir } from '../../loop/checkout/pool/location.js';
import { openRepoStore, trustedMachineConfig } from '../../loop/compose.js';
import type { GitWorktrees } from '../../ports/git.js';
import { type Command, printJson } from '../io.js';

interface Opts {
  repo?: string;
  store?: string;
  json?: boolean;
  promptsOlderThan?: string;
}

/**
 * Removes the repository's pool checkouts no live run holds (the default pool
 * and the one the working tree's config names), the checkouts of their own
 * that runs now ended left in the temp dir, and the temp files that writers
 * killed mid-write left in the state dir (a prompt, a record: io/temp-sweep.ts);
 * with --prompts-older-than, the stored prompts no run has used for that long
 * (io/prompt-retention.ts); and the judge trees (loop/checkout/judge-tree.ts) no live
 * run reads its config from, and the refs fixes of ended runs were imported
 * into (git/import-refs.ts). Exit 0; 2 when not in a repository or given a bad age.
 */
const gc: Command<Opts> = async (_args, opts, io) => {
  const age = opts.promptsOlderThan === undefined ? undefined : parseAge(opts.promptsOlderThan);
  if (age === null)
    throw new UsageError(
      `--prompts-older-than: ${JSON.stringify(opts.promptsOlderThan)} is not an age such as 30d, 12h or 90m`,
    );
  const git = createGit();
  const root = await git.root(resolve(io.cwd, opts.repo ?? '.'));
  const common = commonGitDir(root);
  if (!common) throw new UsageError(`${root} has no .git to find its pool by`);
  // The pool the trusted config names (a working-tree `pool:` that differs is refused there).
  const configured = (
    (await trustedMachineConfig(root, opts.store, io.env)).pool as { dir?: unknown } | undefined
  )?.dir;
  // Also where checkouts lived before they moved out of the git dir: only ever emptied now.
  const pools = new Set([poolDir(common, undefined, root, io.env), join(common, 'revloop', 'pool')]);
  if (typeof configured === 'string' && configured) pools.add(poolDir(common, configured, root, io.env));
  const sweeps = [...pools].map((p) => sweepPool(common, p));
  const own = await sweepOwnCheckouts(git, root, opts, io.env);
  const live = await liveRuns(root, opts, io.env);
  const judges = sweepJudgeTrees(root, io.env, live.configCommits);
  const imports = await forgetImports(root, (runId) => live.ids.has(runId));
  const removed = [...sweeps.flatMap((s) => s.removed), ...own.removed, ...judges.removed];
  const held = [...sweeps.flatMap((s) => s.held), ...own.held, ...judges.held];
  const tempFiles = sweepTempFiles(join(root, '.revloop'));
  const prompts = age === undefined ? undefined : await prunePromptsOlderThan(root, age, opts, io.env);
  if (opts.json)
    printJson(io, { pools: [...pools], removed, held, tempFiles, imports, ...(prompts && { prompts }) });
  else {
    for (const d of removed) io.stdout(`removed ${d}\n`);
    for (const d of held) io.stdout(`kept ${d} (a live run holds it)\n`);
    for (const t of tempFiles) io.stdout(`removed ${t.path} (left by process ${t.pid}, killed mid-write)\n`);
    for (const r of imports) io.stdout(`deleted ${r} (a fix imported for a run that has ended)\n`);
    const temps = tempFiles.length > 0 ? `, ${tempFiles.length} temp file(s) of killed writers removed` : '';
    const pruned = prompts
      ? `, ${prompts.removed} stored prompt(s) unused for ${opts.promptsOlderThan} removed (${mb(prompts.bytes)}), ${prompts.kept} kept`
      : '';
    io.stdout(`${removed.length} removed, ${held.length} held${temps}${pruned}\n`);
  }
  return 0;
};

const mb = (bytes: number): string => `${(bytes / 1e6).toFixed(1)} MB`;

/** An age on the command line: a whole number of days, hours or minutes (`30d`, `12h`, `90m`), in ms. */
function parseAge(text: string): number | null {
  const m = /^(\d{1,6})([dhm])$/.exec(text);
  if (!m) return null;
  const unit = { d: 86_400_000, h: 3_600_000, m: 60_000 }[m[2] as 'd' | 'h' | 'm'];
  return Number(m[1]) * unit;
}

/**
 * Prunes the stored prompts last used more than `age` ms ago, keeping every
 * prompt a verdict of a live run, or of a run that ended within `age`, names.
 */
async function prunePromptsOlderThan(
  root: string,
  age: number,
  opts: Opts,
  env: NodeJS.ProcessEnv,
): Promise<PrunedPrompts> {
  const cutoff = Date.now() - age;
  const keep = new Set<string>();
  const store = await openRepoStore(root, opts.store, env, { readonly: true });
  try {
    for (const run of await store.listRuns()) {
      if (isTerminal(run.status) && (run.endedAt ?? run.updatedAt) < cutoff) continue;
      for (const v of await store.listVerdicts(run.id)) keep.add(v.promptDigest);
    }
  } finally {
    await store.close();
  }
  return prunePrompts(join(root, '.revloop'), cutoff, keep);
}

/** Checkouts outside the pool (`<tmp>/revloop-worktrees/<repo>-<run>-<token>`) whose run has ended or is unknown. */
async function sweepOwnCheckouts(
  git: GitWorktrees,
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

/** The runs still live, and the commits they read their config from (their judge trees stay). */
async function liveRuns(
  root: string,
  opts: Opts,
  env: NodeJS.ProcessEnv,
): Promise<{ ids: Set<string>; configCommits: Set<string> }> {
  const store = await openRepoStore(root, opts.store, env, { readonly: true });
  try {
    const live = await store.listRuns({ status: ['queued', 'running'] });
    return {
      ids: new Set(live.map((r) => r.id)),
      configCommits: new Set(
        live.map((r) => (r.snapshot.configFrom === 'head' ? r.snapshot.head : r.snapshot.base)),
      ),
    };
  } finally {
    await store.close();
  }
}

export default gc;
