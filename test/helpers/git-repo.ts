/**
 * Real throwaway git repositories for tests.
 *
 * ```ts
 * const repo = await makeRepo();          // empty repo on branch `main`
 * repo.write('src/a.ts', 'x\n');          // creates parent dirs; string or Buffer
 * const base = repo.commit('first');      // `git add -A` + commit; returns the full sha
 * repo.git(['checkout', '-b', 'topic']);  // any git command; returns stdout, trailing newline trimmed
 * await repo.cleanup();                   // removes the directory
 * ```
 *
 * Every command runs synchronously with a fixed identity (Test <test@example.com>),
 * no system or global config (GIT_CONFIG_GLOBAL=/dev/null) and no hooks, so
 * results do not depend on the machine. `dir` is a real path (symlinks resolved),
 * as `git rev-parse --show-toplevel` prints it.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

export interface TestRepo {
  /** Absolute, symlink-free path of the worktree. */
  dir: string;
  /** Runs `git <args>` in `dir`; returns stdout without its trailing newline; throws on failure. */
  git(args: string[]): string;
  /** Writes a file relative to `dir`, creating parent directories. */
  write(path: string, content: string | Buffer): void;
  /** Stages everything (`git add -A`) and commits, even when nothing changed; returns the new full sha. */
  commit(message: string): string;
  /** Deletes the repository directory. */
  cleanup(): Promise<void>;
}

/** Environment of every helper git command: deterministic, isolated from the user's config. */
export const TEST_GIT_ENV: NodeJS.ProcessEnv = {
  PATH: process.env.PATH,
  HOME: tmpdir(),
  LC_ALL: 'C',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_TERMINAL_PROMPT: '0',
  GIT_AUTHOR_NAME: 'Test',
  GIT_AUTHOR_EMAIL: 'test@example.com',
  GIT_COMMITTER_NAME: 'Test',
  GIT_COMMITTER_EMAIL: 'test@example.com',
};

/** Creates an empty repository (initial branch `main`) in a fresh temp directory. */
export async function makeRepo(): Promise<TestRepo> {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'revloop-test-repo-')));
  const git = (args: string[]): string =>
    execFileSync('git', ['-c', 'core.hooksPath=/dev/null', ...args], {
      cwd: dir,
      env: TEST_GIT_ENV,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      maxBuffer: 256 * 1024 * 1024,
    }).replace(/\n$/, '');
  git(['init', '--quiet', '--initial-branch=main']);
  return {
    dir,
    git,
    write(path, content) {
      const full = join(dir, path);
      mkdirSync(dirname(full), { recursive: true });
      writeFileSync(full, content);
    },
    commit(message) {
      git(['add', '-A']);
      git(['commit', '--quiet', '--allow-empty', '--no-gpg-sign', '-m', message]);
      return git(['rev-parse', 'HEAD']);
    },
    async cleanup() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** HEAD sha of a checkout (a worktree the loop made, or the user's). The Git port has no such read: the loop knows its heads. */
export function headOf(dir: string): string {
  return execFileSync('git', ['rev-parse', '--verify', 'HEAD'], {
    cwd: dir,
    env: TEST_GIT_ENV,
    encoding: 'utf8',
  }).trim();
}
