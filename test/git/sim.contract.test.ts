/**
 * The simulation's in-memory Git (test/dst/sim-git.ts) under the Git port
 * contract: the simulation drives the real loop over it, so where it answers
 * differently from git the simulation tests a loop that never runs.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SimGit } from '../dst/sim-git.js';
import { runGitContract } from './contract.js';

runGitContract({
  name: 'simulation',
  async open() {
    const root = mkdtempSync(join(tmpdir(), 'revloop-sim-contract-'));
    mkdirSync(join(root, 'repo'));
    const sim = new SimGit(join(root, 'repo'));
    let dirs = 0;
    return {
      git: sim,
      fx: {
        repo: sim.repoRoot,
        commit: async (parent, files) => sim.commit(parent, files),
        branch: async (name, sha) => sim.setRef(`refs/heads/${name}`, sha),
        parents: async (sha) => sim.parentsOf(sha),
        async edit(dir, path, text) {
          const wt = sim.worktree(dir);
          if (!wt) throw new Error(`no simulated checkout at ${dir}`);
          wt.files.set(path, text);
        },
        fixerCommit: async () => {
          throw new Error('a simulated checkout takes no commit of its own');
        },
        freshDir: () => join(root, `checkout-${++dirs}`),
        cleanup: async () => rmSync(root, { recursive: true, force: true }),
      },
    };
  },
  skip: [
    {
      reason: 'a simulated checkout is a map of files: a fixer there makes no commit of its own',
      cases: ["folds the fixer's own commits into one fix commit with one parent"],
    },
    {
      reason:
        'the simulation keeps every commit in one repository: its bundle is the commit id, and an import checks it but makes no ref',
      cases: ['carries a fix commit in a bundle that imports only as that commit'],
    },
  ],
});
