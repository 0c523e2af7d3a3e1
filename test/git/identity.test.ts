/**
 * Issue 16, point 8: the repository's identity and the checkout's branch are
 * Git port reads; the loop asks the port and runs no git around it.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createGit } from '../../src/git/index.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
const git = (dir: string, ...args: string[]) =>
  execFileSync('git', ['-C', dir, ...args], {
    encoding: 'utf8',
    env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null' },
  });
function repo(): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'revloop-identity-')));
  dirs.push(dir);
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '--allow-empty', '-m', 'one');
  return dir;
}

describe('Git port: identity and currentBranch', () => {
  const port = createGit();

  it('names a repository by its origin, without credentials or .git, else by its path', async () => {
    const dir = repo();
    expect(await port.identity(dir)).toBe(`file://${dir}`);
    git(dir, 'remote', 'add', 'origin', 'https://ci:s3cret@example.invalid/acme/app.git');
    expect(await port.identity(dir)).toBe('https://example.invalid/acme/app');
    git(dir, 'remote', 'set-url', 'origin', 'git@example.invalid:acme/app.git');
    expect(await port.identity(dir)).toBe('git@example.invalid:acme/app');
  });

  it("reads the checkout's branch, and null on a detached HEAD", async () => {
    const dir = repo();
    expect(await port.currentBranch(dir)).toBe('main');
    git(dir, 'switch', '-q', '-c', 'feature/x');
    expect(await port.currentBranch(dir)).toBe('feature/x');
    git(dir, 'switch', '-q', '--detach');
    expect(await port.currentBranch(dir)).toBeNull();
  });

  it('src/loop reaches git only through the port (compose.ts, the composition root, makes it)', () => {
    const root = join(import.meta.dirname, '..', '..', 'src', 'loop');
    const files = readdirSync(root, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
    expect(files.length).toBeGreaterThan(10);
    const offenders = files.filter((f) => {
      if (f === 'compose.ts') return false;
      const text = readFileSync(join(root, f), 'utf8');
      // dot-git and worktree-files read and write git's own files (the common dir, a worktree's
      // registration) and start no process.
      return (
        /from '(\.\.\/)+git\/(?!errors|user-ref|dot-git|worktree-files)/.test(text) ||
        /node:child_process|execa/.test(text)
      );
    });
    expect(offenders.map((f) => relative(root, join(root, f)))).toEqual([]);
  });
});
