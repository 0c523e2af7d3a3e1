/**
 * A scope-lock pass belongs to the reviewer that gave it (invariant 11 with
 * docs/security.md): a placeholder that passed an earlier push of the change
 * does not lend its pass to the real reviewer the base's config later swaps in
 * under the same name. Real git, a real subprocess reviewer, a real SQLite ledger.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import {
  baseConfig,
  ensureBuilt,
  findings,
  HEAD_FILE,
  inProcess,
  makeReviewRepo,
  pass,
  raceFinding,
  reposRemovedAfterAll,
  review,
} from './helpers.js';

const repos = reposRemovedAfterAll();
beforeAll(() => ensureBuilt(), 600_000);

const oldLine = (claim: string) =>
  raceFinding({ line: 2, endLine: 2, claim, failureScenario: `add(undefined, 1) returns NaN: ${claim}` });

describe('scope lock binds a pass to the reviewer identity', () => {
  it('a reviewer swapped in under the same name on the base starts fresh: its blockers stand', async () => {
    const r = await makeReviewRepo({
      config: (a) =>
        baseConfig(a, { reviewers: [{ name: 'rust', command: [...a.command, '--placeholder'] }] }),
    });
    repos.push(r);
    const p = await inProcess(r.dir);
    r.plan({
      'reviewer:rust': [
        { call: 1, reply: pass },
        { reply: findings(oldLine('add does not check its inputs'), oldLine('add ignores overflow')) },
      ],
    });
    try {
      const first = await review(p, r.dir, { change: 'PR-7' });
      expect(first.report.run.outcome).toBe('clear');
      // The base's config now names the real linter `rust` (same name, another command).
      r.repo.git(['checkout', '-q', 'main']);
      r.repo.write(
        'revloop.config.yaml',
        JSON.stringify(baseConfig(r.agent, { reviewers: [{ name: 'rust', ...r.agent }] }), null, 2),
      );
      r.repo.commit('rust: the real linter');
      r.repo.git(['checkout', '-q', r.branch]);
      // A new push edits another line; the real linter blocks on unchanged line 2.
      r.repo.write('src/calc.js', HEAD_FILE.replace('return a - b;', 'return b - a;'));
      r.repo.commit('push 2');
      const second = await review(p, r.dir, { change: 'PR-7' });
      expect(second.report.run).toMatchObject({ status: 'completed', outcome: 'findings' });
      expect(second.report.findings.map((f) => [f.severity, f.gate])).toEqual([
        ['MAJOR', { kind: 'kept' }],
        ['MAJOR', { kind: 'kept' }],
      ]);
    } finally {
      await p.close();
    }
  });

  it('the same config naming a script the base rewrote: another reviewer, which starts fresh', async () => {
    const reply = (r: unknown) =>
      `process.stdin.resume();\nprocess.stdin.on('end', () => process.stdout.write(${JSON.stringify(JSON.stringify(r))}));\n`;
    const real = findings(oldLine('add does not check its inputs'));
    const r = await makeReviewRepo({
      config: (a) => baseConfig(a, { reviewers: [{ name: 'rust', command: ['node', 'tools/rust.mjs'] }] }),
      files: { 'tools/rust.mjs': reply(pass) },
    });
    repos.push(r);
    const p = await inProcess(r.dir);
    try {
      const first = await review(p, r.dir, { change: 'PR-8' });
      expect(first.report.run.outcome).toBe('clear');
      // The base replaces the placeholder script with the real linter; the config is unchanged.
      r.repo.git(['checkout', '-q', 'main']);
      r.repo.write('tools/rust.mjs', reply(real));
      r.repo.commit('rust: the real linter');
      r.repo.git(['checkout', '-q', r.branch]);
      r.repo.git(['merge', '-q', '--no-edit', 'main']);
      r.repo.write('src/calc.js', HEAD_FILE.replace('return a - b;', 'return b - a;'));
      r.repo.commit('push 2');
      const second = await review(p, r.dir, { change: 'PR-8' });
      expect(second.report.run).toMatchObject({ status: 'completed', outcome: 'findings' });
      expect(second.report.findings.map((f) => [f.severity, f.gate])).toEqual([['MAJOR', { kind: 'kept' }]]);
    } finally {
      await p.close();
    }
  });
});
