/**
 * The judge tree: a read-only copy of the commit the config was read from,
 * outside the repository (`<cache>/revloop/judge/<repo id>/<commit>`), made
 * once per commit and reused. A reviewer, refuter or fixer command that
 * names a file of that commit (`node tools/review.mjs`) runs the copy in the
 * judge tree, so what it imports (`tools/rules.mjs`) is the base's too: a
 * change that edits either cannot change its judge. The command's working
 * directory and REVLOOP_REPO stay the change's checkout, which is what it
 * judges. A check is not rewritten: its command line is the base config's,
 * and what it runs (`node test/credits.mjs`, importing the code under test
 * by a relative path) must be the change's own tests.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { isAbsolute, join, posix, relative, sep } from 'node:path';
import { commonGitDir } from '../../git/dot-git.js';
import { pidAlive } from '../../io/pid.js';
import type { Git } from '../../ports/git.js';
import { cacheRoot, repoId } from './pool/location.js';

export interface JudgeTree {
  /** The read-only copy of the commit. */
  dir: string;
  /** Repository paths of that commit that a command names (each a file there). */
  named: ReadonlySet<string>;
}

/** The repository path an argument names, if it could name one (relative, or absolute under the root). */
function repoPathOf(arg: string, repoRoot: string): string | null {
  if (arg === '' || arg.startsWith('-') || arg.includes('\n') || /^[a-z][a-z0-9+.-]*:/i.test(arg))
    return null;
  const rel = isAbsolute(arg) ? relative(repoRoot, arg) : arg;
  if (rel === '' || isAbsolute(rel)) return null;
  const p = posix.normalize(rel.split(sep).join('/'));
  return p === '.' || p.startsWith('../') || p === '..' ? null : p.replace(/^\.\//, '');
}

/** An executable without a slash is looked up on PATH, never in the repository. */
const namedPath = (arg: string, i: number, repoRoot: string): string | null =>
  i === 0 && !arg.includes('/') ? null : repoPathOf(arg, repoRoot);

/**
 * The judge tree for `commit` when any of `commands` names one of its files;
 * null when none does (nothing to copy).
 */
export async function judgeTreeFor(
  deps: { git: Git; repoRoot: string; env: NodeJS.ProcessEnv },
  commit: string,
  commands: readonly (readonly string[])[],
): Promise<JudgeTree | null> {
  const candidates = new Set<string>();
  for (const argv of commands)
    argv.forEach((arg, i) => {
      const p = namedPath(arg, i, deps.repoRoot);
      if (p !== null) candidates.add(p);
    });
  if (candidates.size === 0) return null;
  const sizes = await deps.git.blobSizes(
    deps.repoRoot,
    commit,
    [...candidates].map((path) => ({ path })),
  );
  const named = new Set([...candidates].filter((p) => typeof sizes.get(p) === 'number'));
  if (named.size === 0) return null;
  const common = commonGitDir(deps.repoRoot);
  if (!common) return null;
  const dir = join(cacheRoot(deps.env), 'judge', repoId(common), commit);
  if (!existsSync(dir)) await build(deps, commit, dir);
  return { dir, named };
}

/** Made beside its place and renamed into it: a reader never sees half a tree, and two builders one each. */
async function build(deps: { git: Git; repoRoot: string }, commit: string, dir: string): Promise<void> {
  const parent = join(dir, '..');
  mkdirSync(parent, { recursive: true });
  const tmp = join(parent, `.${commit}.${process.pid}.${randomBytes(6).toString('hex')}`);
  try {
    await deps.git.exportTree(deps.repoRoot, commit, tmp);
    setReadOnly(tmp);
    renameSync(tmp, dir);
  } catch (err) {
    removeTree(tmp);
    // Another run made it meanwhile: theirs is the same commit's.
    if (!existsSync(dir)) throw err;
  }
}

/** Files and directories lose their write bits: a process that is not confined cannot edit the judge by mistake. */
function setReadOnly(path: string): void {
  const st = lstatSync(path);
  if (st.isSymbolicLink()) return;
  if (st.isDirectory()) for (const e of readdirSync(path)) setReadOnly(join(path, e));
  chmodSync(path, st.mode & 0o555);
}

function removeTree(path: string): void {
  const writable = (p: string) => {
    try {
      const st = lstatSync(p);
      if (!st.isDirectory()) return;
      chmodSync(p, 0o755);
      for (const e of readdirSync(p)) writable(join(p, e));
    } catch {
      // gone
    }
  };
  writable(path);
  rmSync(path, { recursive: true, force: true });
}

/** `argv` with every argument naming a file of the judge tree's commit pointed into the tree. */
export function inJudgeTree(argv: readonly string[], tree: JudgeTree | null, repoRoot: string): string[] {
  if (!tree) return [...argv];
  return argv.map((arg, i) => {
    const p = namedPath(arg, i, repoRoot);
    return p !== null && tree.named.has(p) ? join(tree.dir, p) : arg;
  });
}

/**
 * Removes this repository's judge trees that no live run reads its config
 * from (`keep`), and the half-built copies builders left when they died. A
 * tree is made again on demand, so a later run loses nothing but the copy.
 */
export function sweepJudgeTrees(
  repoRoot: string,
  env: NodeJS.ProcessEnv,
  keep: ReadonlySet<string>,
): { removed: string[]; held: string[] } {
  const out = { removed: [] as string[], held: [] as string[] };
  const common = commonGitDir(repoRoot);
  if (!common) return out;
  const dir = join(cacheRoot(env), 'judge', repoId(common));
  if (!existsSync(dir)) return out;
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const building = /^\.([0-9a-f]+)\.(\d+)\.[0-9a-f]+$/.exec(name);
    const live = building ? pidAlive(Number(building[2])) : keep.has(name);
    if (live) out.held.push(path);
    else {
      removeTree(path);
      out.removed.push(path);
    }
  }
  return out;
}
