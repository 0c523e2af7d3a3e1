/**
 * Issue 15, point 16: what a reviewer says reaches the terminal as text, never
 * as commands to it. A finding whose file is `lib/\e[2J\e]0;pwned\ax.js` and
 * whose claim carries colour codes and a bidi override, a change id with an
 * escape, a reply that is raw escapes: `review`, `status`, `status RUN` and
 * `export` print each one visibly escaped (`\x1b`, `\u202e`), and `--json`
 * still parses to the very strings. Real CLI, real repository, real agent.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  baseConfig,
  type CliResult,
  ensureBuilt,
  findings,
  HEAD_FILE,
  makeReviewRepo,
  type ReviewRepo,
  raceFinding,
  runCli,
} from '../loop/helpers.js';

const EVIL_FILE = 'lib/\x1b[2J\x1b]0;pwned\x07x.js';
const EVIL_CLAIM = 'deposit \x1b[31mloses\x1b[0m updates \u202eesrever\u202c and \x9b2J';
const CHANGE = 'pr-\x1b[2J-7';
// What a terminal would act on: C0 but \n and \t, DEL, C1, bidi controls.
const RAW = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/;

let r: ReviewRepo;
let reviewed: CliResult;
let runId = '';
beforeAll(async () => {
  ensureBuilt();
  r = await makeReviewRepo({
    config: (a) => baseConfig(a),
    change: { 'src/calc.js': HEAD_FILE, [EVIL_FILE]: 'export const x = 1;\n' },
  });
  r.plan({
    reviewer: [
      {
        reply: findings(
          raceFinding({ claim: EVIL_CLAIM }),
          raceFinding({ file: EVIL_FILE, line: 1, endLine: 1 }),
        ),
      },
    ],
  });
  reviewed = await runCli(['review', '--head', 'topic', '--change', CHANGE], { cwd: r.dir });
  runId = /revloop run (\S+):/.exec(reviewed.stdout)?.[1] ?? '';
}, 120_000);
afterAll(async () => {
  await r?.cleanup();
});

function expectEscaped(out: string) {
  expect(out).not.toMatch(RAW);
  expect(out).toContain('\\x1b[31mloses\\x1b[0m');
  expect(out).toContain('\\u202eesrever\\u202c');
  expect(out).toContain('\\x9b2J');
}

describe('reviewer text on the terminal is escaped (point 16)', () => {
  it('review prints the finding, its file and claim escaped', () => {
    expect(runId, reviewed.stderr + reviewed.stdout).not.toBe('');
    expectEscaped(reviewed.stdout);
    expect(reviewed.stdout).toContain('lib/\\x1b[2J\\x1b]0;pwned\\x07x.js');
    expect(reviewed.stderr).not.toMatch(RAW);
  });

  it('status RUN and the status list', async () => {
    const one = await runCli(['status', runId], { cwd: r.dir });
    expectEscaped(one.stdout);
    expect(one.stdout).toContain('lib/\\x1b[2J');
    const list = await runCli(['status'], { cwd: r.dir });
    expect(list.stdout).not.toMatch(RAW);
    expect(list.stdout).toContain('pr-\\x1b[2J-7');
  });

  it('export to stdout (markdown, and rounds as JSON that still parses to the same strings)', async () => {
    const md = await runCli(['export', runId, '--format', 'markdown'], { cwd: r.dir });
    expect(md.code, md.stderr).toBe(0);
    expect(md.stdout).not.toMatch(RAW);
    const rounds = await runCli(['export', runId, '--format', 'rounds'], { cwd: r.dir });
    expect(rounds.stdout).not.toMatch(RAW);
    const claims = (rounds.json as { rounds: { findings: { claim: string }[] }[] }).rounds[0]?.findings.map(
      (f) => f.claim,
    );
    expect(claims).toContain(EVIL_CLAIM);
  });

  it('--json carries the exact strings, with nothing raw in the bytes', async () => {
    const j = await runCli(['status', runId, '--json'], { cwd: r.dir });
    expect(j.stdout).not.toMatch(RAW);
    expect(j.json).toMatchObject({ change: CHANGE });
    const files = (j.json as { rounds: { findings: { file: string; claim: string }[] }[] }).rounds[0]
      ?.findings;
    expect(files?.map((f) => f.file)).toContain(EVIL_FILE);
  });

  it('a run that fails on a reply of raw escapes says so in one escaped line', async () => {
    r.repo.git(['commit', '--allow-empty', '-q', '-m', 'another revision']);
    r.plan({ reviewer: [{ stdout: '\x1b[2J\x1b]0;pwned\x07 not json \u202e' }] });
    const res = await runCli(['review', '--head', 'topic'], { cwd: r.dir });
    expect(res.code, res.stderr).toBe(3);
    expect(res.stdout + res.stderr).not.toMatch(RAW);
    expect(res.stderr.trim().split('\n')).toHaveLength(1);
  });
});
