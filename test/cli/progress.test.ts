/**
 * Progress while a run goes on: live on a terminal; in a CI log (or with
 * --json) nothing while the run is short, then a whole line on stderr every
 * heartbeat, so a long chunked review is not silent (CI systems end a step
 * silent for ten minutes) and says how far it got. stdout is never written.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { CliIO } from '../../src/cli/io.js';
import { heartbeatMs, type ProgressClock, progressMode, progressPrinter } from '../../src/cli/progress.js';
import type { LoopEvent } from '../../src/loop/deps.js';
import {
  baseConfig,
  ensureBuilt,
  makeReviewRepo,
  pass,
  reposRemovedAfterAll,
  runCli,
  testEnv,
} from '../loop/helpers.js';

const repos = reposRemovedAfterAll();
beforeAll(() => ensureBuilt(), 120_000);

function fakeIo(env: NodeJS.ProcessEnv = {}, isTTY = false) {
  const out = { stdout: '', stderr: '', progress: '' };
  const io: CliIO = {
    cwd: '/',
    env,
    stdout: (t) => {
      out.stdout += t;
    },
    stderr: (t) => {
      out.stderr += t;
    },
    progress: (t) => {
      out.progress += t;
    },
    isTTY,
    stopSignal: new AbortController().signal,
    noteRun: () => undefined,
    self: 'revloop',
  };
  return { io, out };
}

/** A clock the test moves; `tick` runs what is due. */
function fakeClock() {
  let now = 0;
  const timers: { ms: number; next: number; fn: () => void; live: boolean }[] = [];
  const clock: ProgressClock = {
    now: () => now,
    every: (ms, fn) => {
      const t = { ms, next: now + ms, fn, live: true };
      timers.push(t);
      return () => {
        t.live = false;
      };
    },
  };
  const tick = (ms: number) => {
    const end = now + ms;
    for (;;) {
      const due = timers.filter((t) => t.live && t.next <= end).sort((a, b) => a.next - b.next)[0];
      if (!due) break;
      now = due.next;
      due.next += due.ms;
      due.fn();
    }
    now = end;
  };
  return { clock, tick, timers };
}

const run = 'rtest1';
const stage = (s: string, round = 1): LoopEvent => ({
  kind: 'stage',
  runId: run,
  round,
  stage: s,
  head: 'h',
});
const done = (cls: string, costUsd = 0): LoopEvent => ({
  kind: 'call_done',
  runId: run,
  round: 1,
  role: 'reviewer',
  name: 'correctness',
  class: cls,
  costUsd,
});

describe('progress in a CI log (lines)', () => {
  it('says nothing while the run is short, then a line per heartbeat with the calls done, never on stdout', () => {
    const { io, out } = fakeIo();
    const { clock, tick } = fakeClock();
    const p = progressPrinter(io, 'lines', clock);
    p.onEvent?.(stage('review'));
    p.onEvent?.({ kind: 'calls', runId: run, round: 1, stage: 'review', total: 70 });
    p.onEvent?.(done('recorded')); // a resumed run's verdict already in the ledger
    p.onEvent?.(done('ok', 0.25));
    p.onEvent?.(done('timeout')); // an attempt that will be retried is not done
    tick(59_999);
    expect(out.stderr).toBe('');
    tick(1);
    expect(out.stderr).toBe(
      `revloop: run ${run} still running after 1m00s: round 1 · review · 2 of 70 calls done · $0.2500 spent\n`,
    );
    p.onEvent?.(stage('refute'));
    tick(65_000);
    expect(out.stderr.split('\n')[1]).toBe(
      `revloop: run ${run} still running after 2m00s: round 1 · refute · $0.2500 spent`,
    );
    p.done();
    p.done();
    tick(600_000);
    expect(out.stderr.trim().split('\n')).toHaveLength(2);
    expect(out.stdout + out.progress).toBe('');
  });

  it('keeps each run of a worker apart: its own calls, its own age, gone once it ends', () => {
    const { io, out } = fakeIo();
    const { clock, tick } = fakeClock();
    const p = progressPrinter(io, 'lines', clock);
    tick(600_000); // a worker idle for ten minutes prints nothing
    expect(out.stderr).toBe('');
    const a = (e: LoopEvent): LoopEvent => ({ ...e, runId: 'ra' }) as LoopEvent;
    const b = (e: LoopEvent): LoopEvent => ({ ...e, runId: 'rb' }) as LoopEvent;
    p.onEvent?.(a(stage('review')));
    p.onEvent?.(a({ kind: 'calls', runId: 'ra', round: 1, stage: 'review', total: 4 }));
    tick(30_000);
    p.onEvent?.(b(stage('fix', 2)));
    p.onEvent?.(a(done('ok')));
    tick(30_000);
    expect(out.stderr.trim().split('\n')).toEqual([
      'revloop: run ra still running after 1m00s: round 1 · review · 1 of 4 calls done · $0.0000 spent',
      'revloop: run rb still running after 0m30s: round 2 · fix · $0.0000 spent',
    ]);
    p.onEvent?.({ kind: 'end', runId: 'ra', status: 'completed', outcome: 'clear' });
    tick(60_000);
    expect(out.stderr.trim().split('\n').slice(2)).toEqual([
      'revloop: run rb still running after 1m30s: round 2 · fix · $0.0000 spent',
    ]);
    p.done();
  });

  it('REVLOOP_HEARTBEAT_SECONDS sets the interval, 0 turns it off, anything else is a usage error', () => {
    expect(heartbeatMs({})).toBe(60_000);
    expect(heartbeatMs({ REVLOOP_HEARTBEAT_SECONDS: '5' })).toBe(5_000);
    const { io, out } = fakeIo({ REVLOOP_HEARTBEAT_SECONDS: '0' });
    const { clock, tick, timers } = fakeClock();
    const p = progressPrinter(io, 'lines', clock);
    p.onEvent?.(stage('review'));
    tick(3_600_000);
    expect(timers).toHaveLength(0);
    expect(out.stderr).toBe('');
    for (const bad of ['soon', '-1', '1.5', ' 5'])
      expect(() => heartbeatMs({ REVLOOP_HEARTBEAT_SECONDS: bad }), bad).toThrow(
        `REVLOOP_HEARTBEAT_SECONDS: ${JSON.stringify(bad)} is not a whole number of seconds`,
      );
  });

  it('on a terminal the live line carries the calls done; with --json or off a terminal, lines', () => {
    const { io, out } = fakeIo({}, true);
    const { clock } = fakeClock();
    const p = progressPrinter(io, progressMode(io, false), clock);
    p.onEvent?.(stage('review', 2));
    p.onEvent?.({ kind: 'calls', runId: run, round: 2, stage: 'review', total: 6 });
    p.onEvent?.(done('ok'));
    expect(out.progress.split('\r\x1b[2K').at(-1)).toBe(
      'revloop: round 2 · review · 1 of 6 calls done · 0.0s · $0.0000',
    );
    p.done();
    expect(out.progress.endsWith('\r\x1b[2K')).toBe(true);
    expect(progressMode(io, true)).toBe('lines');
    expect(progressMode({ isTTY: false }, false)).toBe('lines');
  });
});

describe('revloop review in a CI log', () => {
  it('prints heartbeat lines on stderr while its calls run, and stdout stays one JSON document', {
    timeout: 120_000,
  }, async () => {
    const r = await makeReviewRepo({ config: (a) => baseConfig(a) });
    repos.push(r);
    r.plan({ reviewer: [{ sleepMs: 3500, reply: pass }] });
    const res = await runCli(['review', '--base', 'main', '--json'], {
      cwd: r.dir,
      env: testEnv({ REVLOOP_HEARTBEAT_SECONDS: '1' }),
    });
    expect(res.code, res.stderr).toBe(0);
    const runId = (JSON.parse(res.stdout) as { runId: string }).runId;
    const lines = res.stderr.trim().split('\n');
    expect(lines.length).toBeGreaterThan(0);
    for (const l of lines)
      expect(l).toMatch(new RegExp(`^revloop: run ${runId} still running after \\dm\\d\\ds: round 1 · `));
    expect(res.stderr).toMatch(/round 1 · review · 0 of 1 calls done · \$0\.0000 spent/);
  });

  it('a bad REVLOOP_HEARTBEAT_SECONDS is one line, exit 2, before any run', async () => {
    const r = await makeReviewRepo({ config: (a) => baseConfig(a) });
    repos.push(r);
    r.plan({ reviewer: [{ reply: pass }] });
    const res = await runCli(['review', '--base', 'main'], {
      cwd: r.dir,
      env: testEnv({ REVLOOP_HEARTBEAT_SECONDS: 'often' }),
    });
    expect(res.code).toBe(2);
    expect(res.stderr.trim().split('\n')).toEqual([
      'revloop: REVLOOP_HEARTBEAT_SECONDS: "often" is not a whole number of seconds (0 turns the heartbeat off)',
    ]);
    expect(r.counts()).toEqual({});
  });
});
