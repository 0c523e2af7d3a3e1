/**
 * Git work of `revloop eval`: a case's commits brought from its bundle (or
 * repository) into a scratch repository, the eval config committed on top of
 * the base with the head replayed onto it, and, for `eval mine`, the
 * synthetic base/revert commits of a fix and the bundle that ships them.
 * Lives in src/git because nothing else runs git.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRunner, type GitRunner } from './run.js';

/** Fixed identity and dates: the same case builds the same commits, so its call keys replay. */
const COMMIT_ENV = {
  GIT_AUTHOR_NAME: 'revloop eval',
  GIT_AUTHOR_EMAIL: 'eval@revloop.invalid',
  GIT_COMMITTER_NAME: 'revloop eval',
  GIT_COMMITTER_EMAIL: 'eval@revloop.invalid',
  GIT_AUTHOR_DATE: '2000-01-01T00:00:00Z',
  GIT_COMMITTER_DATE: '2000-01-01T00:00:00Z',
};

const text = (b: Buffer) => b.toString('utf8').trim();

export interface EvalGit {
  /** A new repository at `dir` holding every ref of `source` (a bundle or a repository) under refs/eval/. */
  importSource(dir: string, source: string): Promise<void>;
  commitExists(dir: string, rev: string): Promise<boolean>;
  /** Lines of `file` at `rev`, or null when it is not a file there. */
  lineCount(dir: string, rev: string, file: string): Promise<number | null>;
  /** A commit with `parent`'s tree (or `tree`'s, when given) plus `files`, as a child of `parent` (null: a root). */
  commitWith(
    dir: string,
    opts: {
      tree: string;
      parent: string | null;
      files?: Record<string, Buffer | string>;
      /** Paths to take from another commit instead (null: delete). */
      from?: { rev: string; paths: Record<string, boolean> };
      message: string;
    },
  ): Promise<string>;
  /** Commits of `since..HEAD` (oldest first), without merges: sha, parent and subject. */
  log(dir: string, since: string): Promise<{ sha: string; parent: string | null; subject: string }[]>;
  /** Paths a commit changed against its first parent. */
  touched(dir: string, sha: string): Promise<string[]>;
  setRef(dir: string, ref: string, sha: string): Promise<void>;
  /** Writes a bundle of every ref under `prefix`. */
  bundle(dir: string, file: string, prefix: string): Promise<void>;
}

export function createEvalGit(run: GitRunner = createRunner()): EvalGit {
  const withIndex = async <T>(fn: (env: Record<string, string>) => Promise<T>): Promise<T> => {
    const tmp = mkdtempSync(join(tmpdir(), 'revloop-eval-index-'));
    try {
      return await fn({ GIT_INDEX_FILE: join(tmp, 'index') });
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  };
  return {
    async importSource(dir, source) {
      mkdirSync(dir, { recursive: true });
      await run.ok(dir, ['init', '-q']);
      await run.ok(dir, ['fetch', '-q', '--no-tags', source, '+refs/*:refs/eval/*']);
    },
    async commitExists(dir, rev) {
      return (await run.exec(dir, ['cat-file', '-e', `${rev}^{commit}`])).code === 0;
    },
    async lineCount(dir, rev, file) {
      const res = await run.exec(dir, ['cat-file', 'blob', `${rev}:${file}`]);
      if (res.code !== 0) return null;
      const s = res.stdout.toString('utf8');
      if (s.length === 0) return 0;
      return s.split('\n').length - (s.endsWith('\n') ? 1 : 0);
    },
    commitWith: (dir, o) =>
      withIndex(async (env) => {
        await run.ok(dir, ['read-tree', o.tree], { env });
        for (const [path, content] of Object.entries(o.files ?? {})) {
          const blob = text(await run.ok(dir, ['hash-object', '-w', '--stdin'], { input: content }));
          await run.ok(dir, ['update-index', '--add', '--cacheinfo', `100644,${blob},${path}`], { env });
        }
        for (const [path, keep] of Object.entries(o.from?.paths ?? {})) {
          const entry = text(await run.ok(dir, ['ls-tree', o.from?.rev as string, '--', path]));
          const m = /^(\d+) blob ([0-9a-f]+)\t/.exec(entry);
          if (keep && m)
            await run.ok(dir, ['update-index', '--add', '--cacheinfo', `${m[1]},${m[2]},${path}`], { env });
          else await run.ok(dir, ['update-index', '--force-remove', '--', path], { env });
        }
        const tree = text(await run.ok(dir, ['write-tree'], { env }));
        const parents = o.parent ? ['-p', o.parent] : [];
        return text(
          await run.ok(dir, ['commit-tree', tree, ...parents, '-m', o.message], { env: COMMIT_ENV }),
        );
      }),
    async log(dir, since) {
      const out = await run.ok(dir, [
        'log',
        '--reverse',
        '--no-merges',
        '--format=%H %P%x09%s',
        `${since}..HEAD`,
      ]);
      return out
        .toString('utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => {
          const [ids = '', ...rest] = l.split('\t');
          const [sha = '', parent] = ids.split(' ');
          return { sha, parent: parent || null, subject: rest.join('\t') };
        });
    },
    async touched(dir, sha) {
      const out = await run.ok(dir, ['diff-tree', '--no-commit-id', '--name-only', '-r', '--root', sha]);
      return out.toString('utf8').split('\n').filter(Boolean);
    },
    async setRef(dir, ref, sha) {
      await run.ok(dir, ['update-ref', ref, sha]);
    },
    async bundle(dir, file, prefix) {
      await run.ok(dir, ['bundle', 'create', '-q', file, `--glob=${prefix}*`]);
    },
  };
}
