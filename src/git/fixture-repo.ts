/**
 * Builds small repositories from file maps: the demo's fixture and the
 * benchmarks' workloads. Lives in src/git because nothing else runs git.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createRunner } from './run.js';

const IDENTITY = [
  '-c',
  'user.name=revloop demo',
  '-c',
  'user.email=demo@revloop.invalid',
  '-c',
  'commit.gpgsign=false',
];

export interface FixtureRepo {
  dir: string;
  /** Writes (or, with null, deletes) files and commits them on the current branch; returns the sha. */
  commit(files: Record<string, string | null>, message: string): Promise<string>;
  /** Creates and checks out a branch at the current commit. */
  branch(name: string): Promise<void>;
  checkout(ref: string): Promise<void>;
}

export async function createFixtureRepo(dir: string, initialBranch = 'main'): Promise<FixtureRepo> {
  mkdirSync(dir, { recursive: true });
  const git = createRunner();
  await git.ok(dir, ['init', '-q', '-b', initialBranch]);
  return {
    dir,
    async commit(files, message) {
      for (const [path, content] of Object.entries(files)) {
        const abs = join(dir, path);
        if (content === null) rmSync(abs, { force: true });
        else {
          mkdirSync(dirname(abs), { recursive: true });
          writeFileSync(abs, content);
        }
      }
      await git.ok(dir, ['add', '-A']);
      await git.ok(dir, [...IDENTITY, 'commit', '-q', '--no-verify', '-m', message]);
      return (await git.ok(dir, ['rev-parse', 'HEAD'])).toString('utf8').trim();
    },
    async branch(name) {
      await git.ok(dir, ['checkout', '-q', '-b', name]);
    },
    async checkout(ref) {
      await git.ok(dir, ['checkout', '-q', ref]);
    },
  };
}
