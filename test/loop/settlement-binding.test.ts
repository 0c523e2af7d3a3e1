/**
 * Issue 15, "false clears and budgets": paths that ended `clear` with a signed
 * record nobody should have. Real git repositories, real subprocess agents,
 * the CLI as a real process, the SQLite ledger.
 *
 * - invariant 16: a settlement binds to the content it judged (a protected
 *   path's blob, a finding's lines and their text), so another edit or the same
 *   claim on other lines needs a new decision; carried-over notes name the
 *   first-hand decision once;
 * - a fix revision that edits the criteria cannot end clear without a person;
 * - an upheld protected-path blocker does not wait for a person again, and a
 *   waiting one shows in the last round of every report.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadRunReport } from '../../src/loop/outputs/run-report-loader.js';
import { generateKeyPair } from '../../src/record/keys.js';
import { openStore } from '../../src/store/index.js';
import { runDetail } from '../../src/web/run-view.js';
import {
  baseConfig,
  ensureBuilt,
  FIXED_FILE,
  findings,
  HEAD_FILE,
  inProcess,
  makeReviewRepo,
  pass,
  type ReviewRepo,
  type ReviewRepoOptions,
  raceFinding,
  runCli,
  testEnv,
} from './helpers.js';

const repos: ReviewRepo[] = [];
// The build runs here when src/ changed; on a loaded machine it can take minutes.
beforeAll(() => ensureBuilt(), 600_000);
afterAll(async () => {
  for (const r of repos) await r.cleanup();
});

async function repo(o: ReviewRepoOptions): Promise<ReviewRepo> {
  const r = await makeReviewRepo(o);
  repos.push(r);
  return r;
}

interface JsonFinding {
  id: string;
  reviewer: string;
  file: string;
  line: number;
  blocking: boolean;
  settlement: { by: string; decision: string; note: string | null } | null;
}
interface JsonRun {
  runId: string;
  status: string;
  outcome: string | null;
  stopReason: string | null;
  record: string | null;
  rounds: { round: number; revision: string; findings: JsonFinding[] }[];
}

async function reviewJson(r: ReviewRepo, extra: string[] = []) {
  const res = await runCli(['review', '--head', 'topic', '--json', ...extra], { cwd: r.dir });
  expect(res.json, res.stderr).not.toBeNull();
  return { code: res.code, run: res.json as unknown as JsonRun, stderr: res.stderr };
}

const lastRound = (run: JsonRun) => run.rounds[run.rounds.length - 1]?.findings ?? [];
const ofRevloop = (run: JsonRun) => lastRound(run).filter((f) => f.reviewer === 'revloop');

async function settle(r: ReviewRepo, id: string, decision: 'upheld' | 'overturned', note?: string) {
  const res = await runCli(
    ['settle', id, '--by', 'Grace Hopper', '--decision', decision, ...(note ? ['--note', note] : [])],
    { cwd: r.dir },
  );
  expect(res.code, res.stderr).toBe(0);
}

/** Pushes one more commit on the change's branch. */
function push(r: ReviewRepo, files: Record<string, string>): string {
  for (const [p, c] of Object.entries(files)) r.repo.write(p, c);
  return r.repo.commit('another push');
}

describe('invariant 16: a settlement covers only the protected content the person saw', () => {
  const RESPONSE = 'export function send(res, body) {\n  res.end(body);\n}\n';

  it('(a) an overturned blocker on one edit of a protected file does not clear another edit of it', async () => {
    const r = await repo({
      config: (a) => baseConfig(a, { protect: ['lib/response.js'] }),
      files: { 'lib/response.js': RESPONSE },
      change: { 'lib/response.js': RESPONSE.replace('res.end(body)', 'res.end(String(body))') },
    });
    r.plan({ reviewer: [{ reply: pass }] });
    const first = await reviewJson(r);
    expect(first.run).toMatchObject({ outcome: 'findings', stopReason: 'review_only' });
    const [blocker] = ofRevloop(first.run);
    expect(blocker).toMatchObject({ file: 'lib/response.js', blocking: true });
    await settle(r, blocker?.id as string, 'overturned', 'a harmless cast');
    const second = await reviewJson(r);
    expect(second.code, second.stderr).toBe(0);
    expect(second.run.outcome).toBe('clear');

    // The author pushes another edit of the same file: nobody has seen it.
    push(r, {
      'lib/response.js': RESPONSE.replace('res.end(body)', 'res.setHeader("x-debug", "1"); res.end(body)'),
    });
    const third = await reviewJson(r);
    expect(third.code).toBe(1);
    expect(third.run.outcome).toBe('findings');
    expect(ofRevloop(third.run)).toEqual([
      expect.objectContaining({ file: 'lib/response.js', blocking: true, settlement: null }),
    ]);
  });

  it('(b) --config-from head: an approved harmless config edit does not approve a later one that swaps the reviewer for a stub', async () => {
    const r = await repo({ config: (a) => baseConfig(a), change: { 'src/notes.txt': 'notes\n' } });
    const real = JSON.parse(readFileSync(join(r.dir, 'revloop.config.yaml'), 'utf8'));
    push(r, { 'revloop.config.yaml': JSON.stringify({ ...real, timeouts: { callSeconds: 30 } }, null, 2) });
    r.plan({ reviewer: [{ reply: pass }] });
    const first = await reviewJson(r, ['--config-from', 'head']);
    expect(first.run.outcome).toBe('findings');
    const [blocker] = ofRevloop(first.run);
    expect(blocker?.file).toBe('revloop.config.yaml');
    await settle(r, blocker?.id as string, 'overturned');
    expect((await reviewJson(r, ['--config-from', 'head'])).run.outcome).toBe('clear');

    // The next push replaces the real reviewer by one that always passes.
    const stub = [
      process.execPath,
      '-e',
      'process.stdout.write(JSON.stringify({verdict:"pass",findings:[]}))',
    ];
    push(r, {
      'revloop.config.yaml': JSON.stringify(
        { ...real, timeouts: { callSeconds: 30 }, reviewers: [{ name: 'correctness', command: stub }] },
        null,
        2,
      ),
    });
    const third = await reviewJson(r, ['--config-from', 'head']);
    expect(third.code).toBe(1);
    expect(third.run.outcome).toBe('findings');
    expect(ofRevloop(third.run)).toEqual([
      expect.objectContaining({ file: 'revloop.config.yaml', blocking: true, settlement: null }),
    ]);
    const verify = await runCli(
      ['verify', third.run.record as string, '--key', join(r.dir, '.revloop/keys/signing.pub')],
      { cwd: r.dir },
    );
    expect(verify.code, verify.stdout + verify.stderr).toBe(1);
  });
});

describe('invariant 16: a settlement covers only the lines and text the person saw', () => {
  const BANNER = "export function banner() {\n  console.log('example v1');\n  return true;\n}\n";
  const AUTH = `${BANNER}
export function auth(req) {
  console.log(req.headers.authorization);
  return req.headers.authorization !== undefined;
}
`;
  const logged = (line: number) => ({
    severity: 'MAJOR',
    file: 'lib/util.js',
    line,
    claim: 'console.log left in library code',
    failureScenario:
      'every caller of this library prints to stdout, which pollutes CLI output that other tools parse',
  });

  it('(c) the same claim at a new line with other content needs a new decision; carried notes name the first decision once', async () => {
    const r = await repo({ config: (a) => baseConfig(a), change: { 'lib/util.js': BANNER } });
    r.plan({ reviewer: [{ reply: findings(logged(2)) }] });
    const first = await reviewJson(r);
    expect(first.run).toMatchObject({ outcome: 'findings', stopReason: 'review_only' });
    const banner = lastRound(first.run)[0] as JsonFinding;
    await settle(r, banner.id, 'overturned', 'the banner is intended');
    const second = await reviewJson(r);
    expect(second.run.outcome).toBe('clear');

    push(r, { 'lib/util.js': AUTH });
    r.plan({ reviewer: [{ reply: findings(logged(2), logged(7)) }] });
    const third = await reviewJson(r);
    expect(third.code).toBe(1);
    expect(third.run.outcome).toBe('findings');
    const [atBanner, atAuth] = lastRound(third.run);
    expect(atAuth).toMatchObject({ line: 7, blocking: true, settlement: null });
    expect(atBanner).toMatchObject({ line: 2, blocking: false });
    expect(atBanner?.settlement).toMatchObject({ by: 'Grace Hopper', decision: 'overturned' });
    // Named once, the first-hand decision of the first run, however many runs carried it.
    const note = atBanner?.settlement?.note ?? '';
    expect(note.match(/carried over/g)).toHaveLength(1);
    expect(note).toContain(`in run ${first.run.runId}`);
    expect(note).toContain(banner.id);
    expect(note).toContain('the banner is intended');
    const p = await inProcess(r.dir);
    try {
      const rows = await p.store.listFindings(third.run.runId);
      expect(rows.find((f) => f.reported.line === 2)?.settlement?.origin).toEqual({
        findingId: banner.id,
        runId: first.run.runId,
      });
    } finally {
      await p.close();
    }
  });
});

describe('invariant 16: an unrelated edit does not void a decision', () => {
  it('the settled lines moved down by an edit above them, same text: the decision still covers them', async () => {
    const BANNER = "export function banner() {\n  console.log('example v1');\n  return true;\n}\n";
    const claim = {
      severity: 'MAJOR',
      file: 'lib/util.js',
      claim: 'console.log left in library code',
      failureScenario:
        'every caller of this library prints to stdout, which pollutes CLI output that other tools parse',
    };
    const r = await repo({ config: (a) => baseConfig(a), change: { 'lib/util.js': BANNER } });
    r.plan({ reviewer: [{ reply: findings({ ...claim, line: 2 }) }] });
    const first = await reviewJson(r);
    await settle(r, lastRound(first.run)[0]?.id as string, 'overturned', 'the banner is intended');
    push(r, { 'lib/util.js': `// util: small helpers\n${BANNER}` });
    r.plan({ reviewer: [{ reply: findings({ ...claim, line: 3 }) }] });
    const moved = await reviewJson(r);
    expect(moved.code, moved.stderr).toBe(0);
    expect(lastRound(moved.run)[0]).toMatchObject({ line: 3, blocking: false });
    // The same text on lines the person never saw is another matter.
    push(r, { 'lib/util.js': `// util: small helpers\n${BANNER}${BANNER.replace('banner', 'banner2')}` });
    r.plan({ reviewer: [{ reply: findings({ ...claim, line: 3 }, { ...claim, line: 7 }) }] });
    const copied = await reviewJson(r);
    expect(copied.code).toBe(1);
    expect(lastRound(copied.run).map((f) => [f.line, f.blocking])).toEqual([
      [3, false],
      [7, true],
    ]);
  });
});

describe('invariant 5: an inherited settlement is recorded with the decision, in its one completion', () => {
  it('killed before the decision is recorded: nothing inherited is left behind; resumed, it is inherited once', async () => {
    const BANNER = "export function banner() {\n  console.log('example v1');\n  return true;\n}\n";
    const claim = {
      severity: 'MAJOR',
      file: 'lib/util.js',
      claim: 'console.log left in library code',
      failureScenario:
        'every caller of this library prints to stdout, which pollutes CLI output that other tools parse',
    };
    const r = await repo({ config: (a) => baseConfig(a), change: { 'lib/util.js': BANNER } });
    r.plan({ reviewer: [{ reply: findings({ ...claim, line: 2 }) }] });
    const first = await reviewJson(r);
    await settle(r, lastRound(first.run)[0]?.id as string, 'overturned', 'the banner is intended');
    push(r, { 'lib/util.js': `// util: small helpers\n${BANNER}` });
    r.plan({ reviewer: [{ reply: findings({ ...claim, line: 3 }) }] });
    const killed = await runCli(['review', '--head', 'topic', '--json'], {
      cwd: r.dir,
      env: testEnv({ REVLOOP_CRASH_AT: 'before-complete:decide' }),
    });
    expect(killed.code, killed.stderr).toBe(-1);
    const store = await openStore('sqlite:.revloop/ledger.db', { repoRoot: r.dir });
    try {
      const [second] = (await store.listRuns()).filter((x) => x.id !== first.run.runId);
      expect(second).toBeDefined();
      const carried = (await store.listFindings(second?.id as string)).map((f) => f.settlement);
      // The decision was never recorded, so neither is what it inherited.
      expect(carried).toEqual([null]);
      expect((await store.listStages(second?.id as string)).map((s) => s.stage)).not.toContain('decide');
    } finally {
      await store.close();
    }
    const resumed = await reviewJson(r);
    expect(resumed.code, resumed.stderr).toBe(0);
    const [f] = lastRound(resumed.run);
    expect(f).toMatchObject({
      line: 3,
      blocking: false,
      settlement: { by: 'Grace Hopper', decision: 'overturned' },
    });
    expect(f?.settlement?.note?.match(/carried over/g)).toHaveLength(1);
  });
});

describe('a fix revision that edits the criteria needs a person (issue 15, point 2)', () => {
  it('a fixer that fixes the blocker and rewrites REVIEW.md does not end clear, is not applied, and does not verify', async () => {
    const keyDir = mkdtempSync(join(tmpdir(), 'revloop-keys-'));
    const pair = generateKeyPair(join(keyDir, 'signing'));
    const pub = readFileSync(pair.publicPath, 'utf8');
    const r = await repo({
      config: (a) => baseConfig(a, { fixer: a, keys: ['keys/signing.pub'] }),
      files: { 'keys/signing.pub': pub },
    });
    mkdirSync(join(r.dir, '.revloop/keys'), { recursive: true });
    copyFileSync(pair.privatePath, join(r.dir, '.revloop/keys/signing.key'));
    copyFileSync(pair.publicPath, join(r.dir, '.revloop/keys/signing.pub'));
    rmSync(keyDir, { recursive: true, force: true });
    r.plan({
      reviewer: [{ round: 1, reply: findings(raceFinding()) }, { reply: pass }],
      fixer: [
        {
          write: { 'src/calc.js': FIXED_FILE, 'REVIEW.md': '# Review criteria\n\nAnything goes.\n' },
          reply: { disputed: [] },
        },
      ],
    });
    const res = await reviewJson(r, ['--apply']);
    expect(res.code).toBe(1);
    expect(res.run).toMatchObject({
      status: 'completed',
      outcome: 'findings',
      stopReason: 'awaiting_settlement',
    });
    expect(res.run.rounds).toHaveLength(2);
    expect(ofRevloop(res.run)).toEqual([expect.objectContaining({ file: 'REVIEW.md', blocking: true })]);
    // The branch stays where the author left it.
    expect(r.repo.git(['rev-parse', 'refs/heads/topic'])).toBe(r.head);
    // The record covers the fix commit; checked out there, verify refuses it, with either key source.
    r.repo.git(['checkout', '-q', '--detach', res.run.rounds[1]?.revision as string]);
    const record = res.run.record as string;
    const byKey = await runCli(['verify', record, '--key', join(r.dir, '.revloop/keys/signing.pub')], {
      cwd: r.dir,
    });
    expect(byKey.code, byKey.stdout + byKey.stderr).toBe(1);
    const byBase = await runCli(['verify', record, '--keys-from', 'main'], { cwd: r.dir });
    expect(byBase.code, byBase.stdout + byBase.stderr).toBe(1);
  });
});

describe('protected-path blockers in the reports (issue 15, point 4)', () => {
  const criteriaEdit = { 'REVIEW.md': '# Review criteria\n\nAnything goes.\n' };

  it('an upheld protected-path blocker ends the next run upheld, not awaiting a settlement that was made', async () => {
    const r = await repo({ config: (a) => baseConfig(a, { fixer: a }), change: criteriaEdit });
    r.plan({ reviewer: [{ reply: pass }] });
    const first = await reviewJson(r);
    expect(first.run.stopReason).toBe('awaiting_settlement');
    const id = ofRevloop(first.run)[0]?.id as string;
    await settle(r, id, 'upheld', 'the criteria stay as they are');
    const again = await reviewJson(r);
    expect(again.code).toBe(1);
    expect(again.run).toMatchObject({ outcome: 'findings', stopReason: 'upheld' });
    expect(ofRevloop(again.run)[0]?.settlement).toMatchObject({ decision: 'upheld' });
    // The dashboard's run page escalates it too (its escalation card is shown when this is set).
    const store = await openStore('sqlite:.revloop/ledger.db', { repoRoot: r.dir });
    try {
      const report = await loadRunReport(store, again.run.runId);
      if (!report) throw new Error('run vanished');
      expect(runDetail(report, Date.now()).escalation).toMatchObject({
        openBlockers: [ofRevloop(again.run)[0]?.id],
      });
    } finally {
      await store.close();
    }
  });

  it('a run waiting on a protected-path blocker shows it, with its id, in the last round of status, markdown, SARIF, GitHub and the escalation report', async () => {
    const r = await repo({
      config: (a) => baseConfig(a, { fixer: a }),
      change: { ...criteriaEdit, 'src/calc.js': HEAD_FILE },
    });
    r.plan({
      reviewer: [{ round: 1, reply: findings(raceFinding()) }, { reply: pass }],
      fixer: [{ write: { 'src/calc.js': FIXED_FILE }, reply: { disputed: [] } }],
    });
    const res = await reviewJson(r);
    expect(res.run).toMatchObject({ outcome: 'findings', stopReason: 'awaiting_settlement' });
    expect(res.run.rounds).toHaveLength(2);
    const waiting = ofRevloop(res.run);
    expect(waiting).toEqual([expect.objectContaining({ file: 'REVIEW.md', blocking: true })]);
    const id = waiting[0]?.id as string;
    const runId = res.run.runId;

    const status = await runCli(['status', runId], { cwd: r.dir });
    const round2 = status.stdout.split('\n').find((l) => /round 2/.test(l)) ?? '';
    expect(round2, status.stdout).toMatch(/1 blocking/);
    expect(status.stdout).toContain(id);
    const exported = async (format: string) => {
      const out = await runCli(['export', runId, '--format', format], { cwd: r.dir });
      expect(out.code, out.stderr).toBe(0);
      return out.stdout;
    };
    const md = await exported('markdown');
    expect(md).toMatch(/Blockers \(1\)/);
    expect(md).toContain(id);
    const sarif = JSON.parse(await exported('sarif')) as {
      runs: {
        results: {
          level: string;
          locations: { physicalLocation: { artifactLocation: { uri: string } } }[];
        }[];
      }[];
    };
    const errors = (sarif.runs[0]?.results ?? []).filter((x) => x.level === 'error');
    expect(errors.map((x) => x.locations[0]?.physicalLocation.artifactLocation.uri)).toEqual(['REVIEW.md']);
    expect(await exported('github')).toMatch(/::error file=REVIEW\.md/);
    const esc = await exported('escalation');
    expect(esc).toContain(id);
    expect(esc).toContain('revloop settle');
    expect(esc).not.toMatch(/no evidence of progress/);
  });
});

describe('the escalation report says what stopped the run (issue 15, point 20)', () => {
  it('a clear run is not said to lack evidence of progress', async () => {
    const r = await repo({ config: (a) => baseConfig(a) });
    r.plan({ reviewer: [{ reply: pass }] });
    const clear = await reviewJson(r);
    expect(clear.run.outcome).toBe('clear');
    const esc = await runCli(['export', clear.run.runId, '--format', 'escalation'], { cwd: r.dir });
    expect(esc.stdout).not.toMatch(/no evidence of progress/);
    expect(esc.stdout).toMatch(/clear/);
  });
});
