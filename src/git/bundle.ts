/**
 * Fix commits as bytes any clone can import (docs/architecture.md, "What the
 * ledger holds"). A bundle names one tip, `HEAD`, and needs the commit the fix
 * was made on; importing fetches that tip into one private ref named by the
 * commit the ledger expects, and keeps it only when it is that commit. The
 * bundle comes from the ledger, which anyone who can write the ledger can
 * change: it never chooses a ref (the refspec is ours, no tags follow), and
 * git checks its objects as they arrive.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Git } from '../ports/git.js';
import { FixBundleRefusedError } from './errors.js';
import { FETCH_CONFIG } from './fetch.js';
import { assertRev } from './revs.js';
import type { GitRunner } from './run.js';

// The fetch's safe settings (fetch.ts), and the bundle's objects checked as they are transferred too.
const IMPORT_CONFIG: readonly string[] = [...FETCH_CONFIG, '-c', 'transfer.fsckObjects=true'];

const firstLine = (s: string): string => s.trim().split('\n').at(-1)?.slice(0, 300) ?? '';

/** The refs a bundle's header lists (`<sha> <name>`), read up to the blank line that ends it. */
function bundleHeads(bytes: Buffer): string[] {
  const end = bytes.indexOf('\n\n');
  if (end < 0) return [];
  const lines = bytes.subarray(0, end).toString('utf8').split('\n').slice(1);
  return lines.filter((l) => l !== '' && !l.startsWith('-') && !l.startsWith('@'));
}

/**
 * The bundle of fix commit `commit`, HEAD of a run's checkout, needing only
 * `prerequisite`. `run` must be the checkout-hardened runner (worktree.ts):
 * the checkout's `.git` is the fixer's to rewrite, so git is told its
 * registration, never left to discover it.
 */
export async function bundleOfCheckout(
  run: GitRunner,
  worktree: string,
  commit: string,
  prerequisite: string,
): Promise<Buffer> {
  assertRev(worktree, commit);
  assertRev(worktree, prerequisite);
  const bytes = await run.ok(worktree, ['bundle', 'create', '-', 'HEAD', `^${prerequisite}`]);
  // The checkout's HEAD is the fix commit the moment it is made; the bundle says so or is not kept.
  const heads = bundleHeads(bytes);
  if (heads.length !== 1 || heads[0] !== `${commit} HEAD`)
    throw new Error(`the bundle of fix commit ${commit} does not name it`);
  return bytes;
}

export function bundleOps(run: GitRunner): Pick<Git, 'importFixBundle'> {
  return {
    async importFixBundle(repo, bundle, expected, ref) {
      assertRev(repo, expected);
      if (!/^refs\/revloop\/[A-Za-z0-9._/-]+$/.test(ref) || ref.includes('..'))
        throw new Error(`not a private ref: ${ref}`);
      const dir = mkdtempSync(join(tmpdir(), 'revloop-bundle-'));
      try {
        const file = join(dir, 'fix.bundle');
        writeFileSync(file, bundle, { mode: 0o600 });
        const verified = await run.exec(repo, ['bundle', 'verify', '-q', file]);
        if (verified.code !== 0) throw new FixBundleRefusedError(expected, firstLine(verified.stderr));
        const fetched = await run.exec(repo, [
          ...IMPORT_CONFIG,
          'fetch',
          '--quiet',
          '--no-tags',
          '--no-prune',
          '--no-write-fetch-head',
          '--no-recurse-submodules',
          file,
          `HEAD:${ref}`,
        ]);
        if (fetched.code !== 0) throw new FixBundleRefusedError(expected, firstLine(fetched.stderr));
        // Unpeeled: a tag that points at the expected commit is not that commit.
        const got = (await run.ok(repo, ['rev-parse', '--verify', '--end-of-options', ref]))
          .toString('utf8')
          .trim();
        if (got !== expected) {
          await run.exec(repo, ['-c', 'core.hooksPath=/dev/null', 'update-ref', '-d', ref]);
          throw new FixBundleRefusedError(expected, `it yields commit ${got}`);
        }
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
