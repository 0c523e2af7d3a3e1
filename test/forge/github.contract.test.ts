/** The GitHub executor under the Forge port contract: octokit, unchanged, against a loopback GitHub checked against @octokit/openapi. */
import { githubAdapter } from '../../src/forge/github/index.js';
import { runForgeContract } from './contract.js';
import { patches, startGitHub, TOKENS } from './setup.js';

const TOKEN = { write: TOKENS.app, 'read-only': TOKENS.readOnly, 'no-checks': TOKENS.pat } as const;

runForgeContract({
  name: 'github',
  async start() {
    const gh = await startGitHub();
    return {
      forge: 'github',
      push(repo, base, head) {
        gh.pulls.set(7, {
          number: 7,
          head,
          base,
          heads: [head],
          files: patches(repo, base, head),
          headRepo: `${gh.owner}/${gh.repo}`,
        });
      },
      adapter: async (access) =>
        githubAdapter(
          { owner: gh.owner, repo: gh.repo, pull: 7 },
          { token: TOKEN[access], baseUrl: gh.url, paceWrites: false, retryAfterUnitMs: 5, retries: 0 },
        ),
      texts: () => [
        ...gh.reviews.map((r) => r.body),
        ...gh.comments.map((c) => c.body),
        ...gh.checkRuns.map((c) => JSON.stringify(c.output)),
        ...gh.statuses.map((s) => s.description),
      ],
      created: () => Object.values(gh.counts()).reduce((a, b) => a + b, 0),
      violations: () => gh.violations,
      stop: () => gh.stop(),
    };
  },
});
