/**
 * What of a fixer's edit can land in the fix commit, and what the controller
 * only reports. Edits inside a submodule cannot land (the submodule is
 * another repository; `git add` leaves them out), so they are named instead
 * of silently dropped. Changes in the user's own working tree while the
 * fixer ran are reported, never blamed on the fixer: revloop cannot tell the
 * user's save from anything else's (docs/architecture.md).
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { refusedFixEntry } from '../../core/fix-entries.js';
import type { RunContext } from './run-context.js';

const MAX_NAMED = 5;

/** Submodule paths of a revision, from its `.gitmodules` (one read per revision, cached). */
async function submodulePaths(ctx: Pick<RunContext, 'facts'>, revision: string): Promise<string[]> {
  const blob = await ctx.facts.readBlob(revision, '.gitmodules').catch(() => null);
  if (!blob) return [];
  const paths: string[] = [];
  for (const m of blob.toString('utf8').matchAll(/^\s*path\s*=\s*(.+?)\s*$/gm)) paths.push(m[1] as string);
  return paths;
}

/** Files under `dir` (relative to `root`), at most `max`. */
function filesUnder(root: string, dir: string, max: number): string[] {
  const out: string[] = [];
  const walk = (rel: string) => {
    for (const e of readdirSync(join(root, rel), { withFileTypes: true })) {
      if (out.length >= max) return;
      const p = `${rel}/${e.name}`;
      if (e.isDirectory()) walk(p);
      else out.push(p);
    }
  };
  if (existsSync(join(root, dir))) walk(dir);
  return out;
}

/**
 * Why some of the fixer's edit cannot land, or null. A run's checkout never
 * initialises submodules (their directories are empty), so anything found in
 * one was written by the fixer.
 */
export async function editsInSubmodules(
  ctx: Pick<RunContext, 'facts' | 'worktree'>,
  revision: string,
): Promise<string | null> {
  for (const sub of await submodulePaths(ctx, revision)) {
    const files = filesUnder(ctx.worktree, sub, MAX_NAMED);
    if (files.length > 0)
      return `the fixer edited inside submodule ${sub} (${files.join(', ')}${files.length >= MAX_NAMED ? ', …' : ''}); edits inside a submodule cannot land in a fix commit`;
  }
  return null;
}

/**
 * Why the fix commit `to` on `from` cannot land (a submodule changed, a link
 * out of the repository: core/fix-entries.ts), or null. Read from the commit,
 * so an edit and a commit the fixer made are judged alike.
 */
export async function refusedFixCommit(
  ctx: Pick<RunContext, 'deps' | 'facts'>,
  from: string,
  to: string,
): Promise<string | null> {
  const changes = await ctx.deps.git.treeChanges(ctx.deps.repoRoot, from, to);
  const links = new Map<string, string>();
  for (const c of changes)
    if (c.newMode === '120000')
      links.set(c.path, (await ctx.facts.readBlob(to, c.path))?.toString('utf8') ?? '');
  return refusedFixEntry(changes, links);
}

/** Paths whose `git status` entry differs between two reads of the user's tree (userTreeState). */
export function changedPaths(before: string, after: string): string[] {
  const key = (e: { path: string; code: string }) => `${e.code} ${e.path}`;
  const parse = (s: string) => JSON.parse(s) as { path: string; code: string }[];
  const a = new Set(parse(before).map(key));
  const b = new Set(parse(after).map(key));
  const paths = new Set<string>();
  for (const e of parse(before)) if (!b.has(key(e))) paths.add(e.path);
  for (const e of parse(after)) if (!a.has(key(e))) paths.add(e.path);
  return [...paths].sort();
}
