/**
 * Invariants 1, 2 and 9 through the real CLI, real git and real subprocess
 * reviewers: a clear run exits 0, findings exit 1, and every kind of bad
 * input is one line on stderr with its own non-zero exit code, never `clear`.
 */
import { existsSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  baseConfig,
  type CliResult,
  ensureBuilt,
  findings,
  makeReviewRepo,
  type Plan,
  pass,
  type ReviewRepo,
  type ReviewRepoOptions,
  raceFinding,
  reposRemovedAfterAll,
  runCli,
} from '../loop/helpers.js';

const repos = reposRemovedAfterAll();
beforeAll(() => ensureBuilt(), 600_000);

async function reviewWith(
  plan: Plan,
  o: Partial<ReviewRepoOptions> = {},
  args: string[] = [],
): Promise<{ r: ReviewRepo; res: CliResult }> {
  const r = await makeReviewRepo({ config: (a) => baseConfig(a), ...o });
  repos.push(r);
  r.plan(plan);
  const res = await runCli(['review', '--head', 'topic', '--json', ...args], { cwd: r.dir });
  return { r, res };
}

/** Invariant 1: a bad input is one `revloop:` line on stderr, never exit 0 or 1, never clear. */
function expectBadInput(res: CliResult, code: number, pattern: RegExp) {
  expect(res.code, res.stderr).toBe(code);
  const lines = res.stderr.trim().split('\n');
  expect(lines, res.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(/^revloop: /);
  expect(lines[0]).toMatch(pattern);
  expect(res.stdout).not.toMatch(/"outcome": "clear"/);
}

describe('review: outcomes (invariant 2)', () => {
  it('a clear run exits 0 with outcome clear and writes a record', async () => {
    const { r, res } = await reviewWith({ reviewer: [{ reply: pass }] });
    expect(res.code, res.stderr).toBe(0);
    const j = res.json as Record<string, unknown> & { rounds: { revision: string; findings: unknown[] }[] };
    expect(j).toMatchObject({
      status: 'completed',
      outcome: 'clear',
      stopReason: 'clear',
      admitted: 'created',
    });
    expect(typeof j.runId).toBe('string');
    expect(j.rounds).toHaveLength(1);
    expect(j.rounds[0]?.revision).toBe(r.head);
    expect(existsSync(j.record as string)).toBe(true);
  });

  it('findings exit 1, and the JSON keeps status apart from outcome', async () => {
    const { r, res } = await reviewWith({ reviewer: [{ reply: findings(raceFinding()) }] });
    expect(res.code, res.stderr).toBe(1);
    const j = res.json as Record<string, unknown> & {
      rounds: { revision: string; findings: { severity: string; file: string }[] }[];
    };
    expect(j).toMatchObject({ status: 'completed', outcome: 'findings', stopReason: 'review_only' });
    expect(j.rounds[0]?.revision).toBe(r.head);
    expect(j.rounds[0]?.findings).toEqual([
      expect.objectContaining({ severity: 'MAJOR', file: 'src/calc.js' }),
    ]);
    expect(j.record).toEqual(expect.any(String));
  });

  it('invariant 9: a vague blocker is recorded as MINOR and the run is clear', async () => {
    const vague = { severity: 'MAJOR', file: 'src/calc.js', line: 10, claim: 'This could cause issues.' };
    const { res } = await reviewWith({ reviewer: [{ reply: findings(vague) }] });
    expect(res.code, res.stderr).toBe(0);
    const j = res.json as { outcome: string; rounds: { findings: unknown[] }[] };
    expect(j.outcome).toBe('clear');
    // `severity` is what the reviewer reported (calibration sees inflation); the gate decides.
    expect(j.rounds[0]?.findings[0]).toMatchObject({
      severity: 'MAJOR',
      effectiveSeverity: 'MINOR',
      blocking: false,
      gate: { kind: 'demoted', rule: 'no_scenario', from: 'MAJOR' },
    });
  });

  it('a failed run prints status, a null outcome and exits 3', async () => {
    const { res } = await reviewWith({ reviewer: [{ stdout: 'not json' }] });
    expect(res.code).toBe(3);
    expect(res.json).toMatchObject({
      status: 'failed',
      outcome: null,
      stopReason: null,
      reason: 'malformed',
    });
  });
});

describe('review: bad input (invariant 1)', () => {
  it('not a git repository', async () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'revloop-not-git-')));
    try {
      const res = await runCli(['review', '--head', 'topic'], { cwd: dir });
      expectBadInput(res, 2, /not a git repository|git/i);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('an unknown ref', async () => {
    const { res } = await reviewWith({}, {}, ['--base', 'no-such-branch']);
    expectBadInput(res, 2, /no-such-branch/);
  });

  it('no config at the base commit', async () => {
    const { res } = await reviewWith({}, { configOnBranch: true });
    expectBadInput(res, 2, /no revloop\.config\.yaml.*config-from head/);
  });

  it('invalid YAML', async () => {
    const { res } = await reviewWith({}, { config: 'reviewers: [ { name: x\n  : :\n' });
    expectBadInput(res, 2, /revloop\.config\.yaml: invalid YAML/);
  });

  it('an unknown config key names the key and the file', async () => {
    const { res } = await reviewWith({}, { config: (a) => ({ ...baseConfig(a), budget: { rounds: 2 } }) });
    expectBadInput(res, 2, /revloop\.config\.yaml: budget: unknown key/);
  });
});

describe('review: bad replies end the run without an outcome (invariant 1)', () => {
  const cases: [string, Plan | null, string, RegExp][] = [
    ['a reviewer command that does not exist', null, 'reviewer_failed', /ENOENT|not found|no such/i],
    ['a reply that is not JSON', { reviewer: [{ stdout: 'LGTM, ship it' }] }, 'malformed', /JSON|json/],
    ['empty output with exit 0', { reviewer: [{ stdout: '' }] }, 'malformed', /empty|no output|JSON/i],
    [
      'a reply that breaks the schema',
      { reviewer: [{ reply: { verdict: 'maybe', findings: [] } }] },
      'malformed',
      /verdict/,
    ],
    [
      'a finding whose path escapes the repository',
      { reviewer: [{ reply: findings(raceFinding({ file: '../../etc/passwd' })) }] },
      'malformed',
      /repositor|path/i,
    ],
  ];
  it.each(cases)('%s', async (_name, plan, reason, detail) => {
    const { res } = await reviewWith(
      plan ?? {},
      plan ? {} : { config: { ...baseConfig({ command: ['/nonexistent/revloop-agent'] }) } },
    );
    expect(res.code, res.stderr).toBe(3);
    expect(res.json).toMatchObject({ status: 'failed', outcome: null, reason });
    expect(String((res.json as { detail: string }).detail)).toMatch(detail);
    const line = res.stderr.trim().split('\n');
    expect(line, res.stderr).toHaveLength(1);
    expect(line[0]).toMatch(new RegExp(`^revloop: run \\S+ failed \\(${reason}\\)`));
  });
});
