/** The git binary adapter (src/git) under the Git port contract, over real repositories in temp dirs. */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createGit } from '../../src/git/index.js';
import { makeRepo, TEST_GIT_ENV } from '../helpers/git-repo.js';
import { runGitContract } from './contract.js';

runGitContract({
  name: 'git binary',
  async open() {
    const repo = await makeRepo();
    const side = realpathSync(mkdtempSync(join(tmpdir(), 'revloop-git-contract-')));
    // Commits are built in an index of their own: the repository's work tree is never touched.
    const env = { ...TEST_GIT_ENV, GIT_INDEX_FILE: join(side, 'index') };
    const git = (args: string[], cwd = repo.dir, input?: string): string =>
      execFileSync('git', ['-c', 'core.hooksPath=/dev/null', ...args], {
        cwd,
        env,
        input,
        encoding: 'utf8',
      }).trim();
    let dirs = 0;
    return {
      git: createGit(),
      fx: {
        repo: repo.dir,
        async commit(parent, files) {
          git(['read-tree', '--empty']);
          for (const [path, text] of Object.entries(files)) {
            const blob = git(['hash-object', '-w', '--stdin'], repo.dir, text);
            git(['update-index', '--add', '--cacheinfo', `100644,${blob},${path}`]);
          }
          const tree = git(['write-tree']);
          return git(['commit-tree', tree, ...(parent ? ['-p', parent] : []), '-m', 'contract']);
        },
        async branch(name, sha) {
          git(['update-ref', `refs/heads/${name}`, sha]);
        },
        async parents(sha) {
          return git(['rev-list', '--parents', '-n', '1', sha]).split(' ').slice(1);
        },
        async edit(dir, path, text) {
          writeFileSync(join(dir, path), text);
        },
        async fixerCommit(dir) {
          const inDir = { ...TEST_GIT_ENV };
          execFileSync('git', ['-C', dir, 'add', '-A'], { env: inDir });
          execFileSync('git', ['-C', dir, 'commit', '-q', '--no-gpg-sign', '-m', 'fixer'], { env: inDir });
        },
        freshDir: () => join(side, `checkout-${++dirs}`),
        async cleanup() {
          await repo.cleanup();
          rmSync(side, { recursive: true, force: true });
        },
      },
    };
  },
});
