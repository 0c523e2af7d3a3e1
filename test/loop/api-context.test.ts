/**
 * Issue 17, point 5, through the real loop: an anthropic reviewer's prompt
 * carries the changed files' content at the revision within
 * review.contextBytes (real git repository, SQLite ledger, the loopback fault
 * server through the real SDK), and the attempt records how the reply was
 * asked for and the tokens it used.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createFixtureRepo } from '../../src/git/fixture-repo.js';
import { promptPath } from '../../src/io/prompt-files.js';
import { composeDeps } from '../../src/loop/compose.js';
import { reviewRevision } from '../../src/loop/operations.js';
import { signingKeyPath } from '../../src/loop/outputs/write-record.js';
import type { Store } from '../../src/ports/store.js';
import { openStore } from '../../src/store/index.js';
import { type FaultServer, faults, startFaultServer } from '../helpers/fault-server.js';

let server: FaultServer;
const dirs: string[] = [];
beforeAll(async () => {
  server = await startFaultServer();
});
afterAll(async () => {
  await server.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A review of `topic` in `dir` with an API key in the environment; it must end clear. */
async function reviewClear(store: Store, dir: string) {
  const deps = composeDeps({
    store,
    repoRoot: dir,
    env: { PATH: process.env.PATH, ANTHROPIC_API_KEY: 'k-0123456789' },
  });
  const res = await reviewRevision(deps, { repoDir: dir, headRef: 'topic', configFrom: 'base' });
  expect(res.kind === 'run' && res.run.outcome).toBe('clear');
  return res;
}

it('the prompt carries the changed files within the budget, a file the diff shows whole once; the attempt notes the structured reply', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'revloop-api-context-'));
  dirs.push(dir);
  const repo = await createFixtureRepo(dir);
  const config = [
    'criteria: REVIEW.md',
    'reviewers:',
    `  - { name: api, adapter: anthropic, baseURL: "${server.anthropicBaseURL}", model: claude-pinned }`,
    'review: { contextBytes: 2000, temperature: 0.2 }',
    '',
  ].join('\n');
  const head4 = '// header 1\n// header 2\n// header 3\n// header 4\n';
  const big = `${head4}${'// a long generated table\n'.repeat(200)}export const rows = [];\n`;
  await repo.commit(
    {
      '.gitignore': '.revloop/\n',
      'REVIEW.md': '1. No lost updates.\n',
      'revloop.config.yaml': config,
      'src/a.js':
        'export const a = 1;\n// unchanged context line\n// one\n// two\n// three\nexport const b = 0;\n',
      'src/rewritten.js': 'export const r = 0;\n',
      'src/gone.js': 'export const gone = 1;\n',
      'src/big.js': `${head4}export const rows = [];\n`,
    },
    'base',
  );
  await repo.branch('topic');
  await repo.commit(
    {
      'src/a.js':
        'export const a = 1;\n// unchanged context line\n// one\n// two\n// three\nexport const b = a + 1;\n',
      'src/rewritten.js': 'export const r = 1;\n',
      'src/big.js': big,
      'src/new.js': 'export const fresh = 2;\n',
      'src/gone.js': null,
    },
    'change',
  );
  signingKeyPath(dir);
  server.push(faults.tool({ verdict: 'pass', findings: [] }));
  const store = await openStore('sqlite:.revloop/ledger.db', { repoRoot: dir });
  try {
    const res = await reviewClear(store, dir);
    const body = JSON.parse(server.requests[0]?.body ?? '{}');
    const [shared, own] = body.messages[0].content as { text: string }[];
    expect(body.temperature).toBe(0.2);
    // The whole post-change file, around the hunk; the file over the budget is named, not sent.
    expect(shared?.text).toContain('### src/a.js\n```\nexport const a = 1;\n// unchanged context line\n');
    expect(shared?.text).toContain('Not included (over the context budget): src/big.js');
    expect(shared?.text).not.toContain('a long generated table\n// a long');
    // A new file, and a file whose one hunk shows every line of it, are in the diff whole: named, not sent twice.
    expect(shared?.text).toContain('Not included (whole in the diff above): src/new.js, src/rewritten.js');
    expect(shared?.text).not.toContain('### src/new.js');
    expect(shared?.text).not.toContain('### src/rewritten.js');
    expect(shared?.text).toContain('+export const fresh = 2;');
    // A deleted file has no post-change content.
    expect(shared?.text).not.toContain('### src/gone.js');
    expect(own?.text).toContain('Reviewer: api');
    const attempts = await store.listAttempts(res.kind === 'run' ? res.run.id : '');
    expect(attempts).toHaveLength(1);
    expect(attempts[0]).toMatchObject({
      class: 'ok',
      detail: expect.stringContaining('structured output (forced tool call); tokens:'),
    });
    expect(res.kind === 'run' && res.run.snapshot.review).toMatchObject({
      contextBytes: 2000,
      temperature: 0.2,
    });
  } finally {
    await store.close();
  }
}, 120_000);

it("an ignored file is in no prompt: not the API reviewer's file context, nor the refuter's or the fixer's diff", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'revloop-api-context-'));
  dirs.push(dir);
  const repo = await createFixtureRepo(dir);
  const finding = {
    severity: 'MAJOR',
    file: 'src/a.js',
    line: 1,
    claim: 'a is off by one',
    failureScenario: 'a caller reading a gets 1 where it needs 2',
  };
  const script = {
    refuter: { '*': { reply: { decision: 'upheld', reason: 'it is' } } },
    fixer: { '*': { write: { 'src/a.js': 'export const a = 2;\n' }, reply: { disputed: [] } } },
  };
  const config = [
    'criteria: REVIEW.md',
    'ignore: ["vendor/**"]',
    'reviewers:',
    `  - { name: api, adapter: anthropic, baseURL: "${server.anthropicBaseURL}", model: claude-pinned }`,
    'refuter: { adapter: scripted, script: review/script.json }',
    'fixer: { adapter: scripted, script: review/script.json }',
    'budgets: { rounds: 3, wallSeconds: 600, costUsd: 5 }',
    '',
  ].join('\n');
  await repo.commit(
    {
      '.gitignore': '.revloop/\n',
      'REVIEW.md': '1. No lost updates.\n',
      'revloop.config.yaml': config,
      'review/script.json': JSON.stringify(script),
      'src/a.js': 'export const a = 0;\n',
      'vendor/lib.js': 'export const vendored = "OLD_VENDOR_TEXT";\n',
    },
    'base',
  );
  await repo.branch('topic');
  await repo.commit(
    {
      'src/a.js': 'export const a = 1;\n',
      'vendor/lib.js': 'export const vendored = "NEW_VENDOR_TEXT";\n',
    },
    'change',
  );
  signingKeyPath(dir);
  server.requests.length = 0;
  server.push(faults.tool({ verdict: 'findings', findings: [finding] }));
  server.push(faults.tool({ verdict: 'pass', findings: [] }));
  const store = await openStore('sqlite:.revloop/ledger.db', { repoRoot: dir });
  try {
    const res = await reviewClear(store, dir);
    const runId = res.kind === 'run' ? res.run.id : '';
    const roles = (await store.listVerdicts(runId)).map((v) => v.role);
    expect(roles).toEqual(['reviewer', 'refuter', 'fixer', 'reviewer']);
    // What the endpoint was sent: the kept file (a one-line file, whole in the diff), never the ignored one.
    expect(server.requests).toHaveLength(2);
    for (const req of server.requests) {
      expect(req.body).toContain('Not included (whole in the diff above): src/a.js');
      expect(req.body).not.toContain('VENDOR_TEXT');
      expect(req.body).not.toContain('vendor/lib.js');
    }
    // Every prompt the run saved (reviewer, refuter, fixer), as the agents got it.
    for (const v of await store.listVerdicts(runId)) {
      const prompt = readFileSync(promptPath(join(dir, '.revloop'), v.promptDigest), 'utf8');
      expect(prompt, v.role).toContain('src/a.js');
      expect(prompt, v.role).not.toContain('VENDOR_TEXT');
      expect(prompt, v.role).not.toContain('vendor/lib.js');
    }
  } finally {
    await store.close();
  }
}, 120_000);
