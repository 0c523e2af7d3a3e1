/** The GitLab executor under the Forge port contract: gitbeaker, unchanged, against a loopback GitLab checking each request's documented shape. */
import { gitlabAdapter } from '../../src/forge/gitlab/index.js';
import { runForgeContract } from './contract.js';
import { FakeGitLab } from './fake-gitlab.js';
import { patches } from './setup.js';

runForgeContract({
  name: 'gitlab',
  async start() {
    const gl = await new FakeGitLab().start();
    gl.tokens.set('glpat-bot', { username: 'revloop-bot', canWrite: true });
    gl.tokens.set('glpat-reader', { username: 'revloop-bot', canWrite: false });
    return {
      forge: 'gitlab',
      push(repo, base, head) {
        gl.mr = {
          ...gl.mr,
          base,
          start: base,
          head,
          diffs: patches(repo, base, head).map((f) => ({
            old_path: f.filename,
            new_path: f.filename,
            diff: f.patch,
            deleted_file: f.status === 'removed',
          })),
        };
      },
      adapter: async (access) =>
        gitlabAdapter(
          { project: gl.project, mr: 7 },
          { token: access === 'read-only' ? 'glpat-reader' : 'glpat-bot', apiUrl: gl.url },
        ),
      texts: () => [
        ...gl.discussions.flatMap((d) => d.notes.map((n) => n.body)),
        ...gl.statuses.map((s) => s.description),
      ],
      created: () => Object.values(gl.counts()).reduce((a, b) => a + b, 0),
      violations: () => gl.violations,
      stop: () => gl.stop(),
    };
  },
  skip: [
    {
      reason:
        'GitLab has commit statuses only: there is no check run for a token to be refused and fall back from',
      cases: ['a token that may not create check runs gets a commit status instead'],
    },
  ],
});
