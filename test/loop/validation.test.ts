/**
 * The validation walk-through of docs/validation.md, as a test: a fixture
 * with a data race; a clean run of the whole loop; a stale head injected
 * mid-run and rejected; the model endpoint killed mid-stream and the call
 * replayed under the same key, converging on the same verdict; a duplicate
 * delivery counted once. Real git, real processes, a real SQLite ledger, the
 * OpenAI adapter against the loopback fault server.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FaultServer, faults, startFaultServer } from '../helpers/fault-server.js';
import {
  baseConfig,
  dyingAt,
  ensureBuilt,
  FIXED_FILE,
  findings,
  inProcess,
  makeReviewRepo,
  pass,
  type ReviewRepo,
  raceFinding,
  review,
  runCli,
  testEnv,
} from './helpers.js';

const repos: ReviewRepo[] = [];
let server: FaultServer;
const ENV = testEnv({ REVLOOP_VALIDATION_KEY: 'sk-validation-not-a-secret' });

beforeAll(async () => {
  ensureBuilt();
  server = await startFaultServer();
}, 600_000);
afterAll(async () => {
  await server?.close();
  for (const r of repos) await r.cleanup();
});

async function raceRepo(config: (a: { command: string[] }) => Record<string, unknown>) {
  const r = await makeReviewRepo({ config: (a) => baseConfig(a, config(a)) });
  repos.push(r);
  return r;
}

describe('validation walk-through (docs/validation.md)', () => {
  it('1. a clean run: the race is found, upheld, fixed, re-reviewed, and replays identical', async () => {
    const r = await raceRepo((a) => ({ refuter: a, fixer: a }));
    r.plan({
      reviewer: [{ round: 1, reply: findings(raceFinding()) }, { reply: pass }],
      refuter: [{ reply: { decision: 'upheld', reason: 'the await splits the read from the write' } }],
      fixer: [{ write: { 'src/calc.js': FIXED_FILE }, reply: { disputed: [] } }],
    });
    const res = await runCli(['review', '--head', 'topic', '--json'], { cwd: r.dir, env: ENV });
    expect(res.code, res.stderr).toBe(0);
    expect(res.json).toMatchObject({ status: 'completed', outcome: 'clear', stopReason: 'clear' });
    const rounds = (res.json as { rounds: { blocking: number }[] }).rounds;
    expect(rounds.map((x) => x.blocking)).toEqual([1, 0]);
    const replay = await runCli(['replay', res.json?.runId as string, '--json'], { cwd: r.dir, env: ENV });
    expect(replay.code, replay.stderr).toBe(0);
    expect(replay.json).toMatchObject({ identical: true });
  });

  it('2. a stale head injected mid-run is rejected: superseded, and the new head is a new run', async () => {
    const r = await raceRepo(() => ({}));
    r.plan({
      reviewer: [
        { call: 1, actions: ['pushMain'], reply: findings(raceFinding()) },
        { reply: findings(raceFinding()) },
      ],
    });
    const first = await runCli(['review', '--head', 'topic', '--json'], { cwd: r.dir, env: ENV });
    expect(first.code).toBe(3);
    expect(first.json).toMatchObject({ status: 'aborted', outcome: null, reason: 'superseded' });
    expect(
      (first.json as { rounds: unknown[] }).rounds.every(
        (x) => (x as { findings: unknown[] }).findings.length === 0,
      ),
    ).toBe(true);
    const second = await runCli(['review', '--head', 'topic', '--json'], { cwd: r.dir, env: ENV });
    expect(second.code).toBe(1);
    expect(second.json).toMatchObject({ admitted: 'created', status: 'completed', outcome: 'findings' });
    expect(second.json?.head).toBe(r.repo.git(['rev-parse', 'topic']));
  });

  it('3. the endpoint killed mid-stream: replayed under the same call key, converging on the same verdict', async () => {
    const config = () => ({
      reviewers: [
        {
          name: 'correctness',
          adapter: 'openai',
          baseURL: server.openaiBaseURL,
          model: 'validation-model',
          apiKeyEnv: 'REVLOOP_VALIDATION_KEY',
        },
      ],
    });
    const verdict = findings(raceFinding());
    // The undisturbed run.
    const calm = await raceRepo(config);
    server.push(faults.json(verdict));
    const pc = await inProcess(calm.dir, { env: ENV });
    const a = await review(pc, calm.dir).finally(() => pc.close());
    // The endpoint resets the connection after part of the reply.
    const cut = await raceRepo(config);
    server.push(faults.resetMidStream('{"verdict":"findings","findings":[{"sev'), faults.json(verdict));
    const pk = await inProcess(cut.dir, { env: ENV });
    const b = await review(pk, cut.dir).finally(() => pk.close());

    expect(b.report.attempts.map((x) => [x.attemptNo, x.class])).toEqual([
      // A stream cut before its finish reason is a truncation (DESIGN.md: timeout / truncated).
      [1, 'truncated'],
      [2, 'ok'],
    ]);
    expect(new Set(b.report.attempts.map((x) => x.callKey)).size).toBe(1);
    expect(b.report.verdicts).toHaveLength(1);
    expect(b.report.verdicts[0]?.callKey).toBe(b.report.attempts[0]?.callKey);
    expect(b.report.verdicts[0]?.reply).toEqual(a.report.verdicts[0]?.reply);
    expect([b.report.run.status, b.report.run.outcome]).toEqual([a.report.run.status, a.report.run.outcome]);
    expect(b.report.run.outcome).toBe('findings');
  });

  it('4. a duplicate delivery is counted once', async () => {
    const r = await raceRepo(() => ({}));
    r.plan({ reviewer: [{ reply: findings(raceFinding()) }] });
    // The controller dies after the verdict is recorded, before the review stage completes.
    const dying = await inProcess(r.dir, { env: ENV, tweak: dyingAt('before-complete:review', 200) });
    await expect(review(dying, r.dir)).rejects.toThrow('controller died');
    await dying.close();
    await new Promise((res) => setTimeout(res, 300));

    const p = await inProcess(r.dir, { env: ENV });
    try {
      const [run] = await p.store.listRuns();
      if (!run) throw new Error('no run');
      const [v] = await p.store.listVerdicts(run.id);
      if (!v) throw new Error('no verdict');
      // The same call's reply delivered a second time: the recorded verdict comes back, nothing is written.
      const lease = await p.store.acquireLease(run.id, p.deps.owner, 5000);
      if (!lease) throw new Error('no lease');
      const { recordedAt: _, ...row } = v;
      const dup = await p.store.recordVerdict(lease, { ...row, reply: pass });
      expect(dup).toMatchObject({ inserted: false, verdict: { reply: v.reply } });
      await p.store.releaseLease(lease);
      // Review again: the run of this key is resumed with the recorded verdict; the reviewer is not called again.
      const again = await review(p, r.dir);
      expect(again).toMatchObject({
        admitted: 'existing',
        run: { status: 'completed', outcome: 'findings' },
      });
      expect(again.report.verdicts).toHaveLength(1);
      expect(again.report.attempts).toHaveLength(1);
      expect(r.counts().reviewer).toBe(1);
    } finally {
      await p.close();
    }
  });
});
