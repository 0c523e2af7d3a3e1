/**
 * What a person sees while a run goes on.
 *
 * - On a terminal (`live`): one line, rewritten in place, with the round,
 *   stage, calls done of the stage's calls, the latest agent, elapsed time
 *   and money spent.
 * - Anywhere else (`lines`: a CI log, or --json): nothing while the run is
 *   short, then a whole line on stderr every heartbeat (60 s by default,
 *   `REVLOOP_HEARTBEAT_SECONDS`, 0 for none). A chunked review of a large
 *   change can take many minutes of model calls; a log silent all that time
 *   looks hung, and some CI systems end a step that prints nothing for ten
 *   minutes (CircleCI's no_output_timeout). stdout, which --json owns, is
 *   never written.
 */
import { UsageError } from '../core/errors.js';
import type { LoopEvent } from '../loop/deps.js';
import type { CliIO } from './io.js';
import { terminalSafe } from './terminal-safe.js';

export type ProgressMode = 'live' | 'lines';

/** Timers, passed in so that a test drives them. */
export interface ProgressClock {
  now: () => number;
  /** Calls `fn` every `ms` until the returned function is called. */
  every: (ms: number, fn: () => void) => () => void;
}

const realClock: ProgressClock = {
  now: Date.now,
  every: (ms, fn) => {
    const t = setInterval(fn, ms);
    t.unref();
    return () => clearInterval(t);
  },
};

/** The live line's redraw, so that a long call still shows time passing. */
const REDRAW_MS = 1000;
const DEFAULT_HEARTBEAT_SECONDS = 60;

/** The mode a run-driving command shows progress in: live on a terminal unless it prints JSON. */
export const progressMode = (io: Pick<CliIO, 'isTTY'>, json: boolean | undefined): ProgressMode =>
  io.isTTY && !json ? 'live' : 'lines';

/** `REVLOOP_HEARTBEAT_SECONDS`: a whole number of seconds (0: no heartbeat), checked before a run starts. */
export function heartbeatMs(env: NodeJS.ProcessEnv): number {
  const raw = env.REVLOOP_HEARTBEAT_SECONDS;
  if (raw === undefined || raw === '') return DEFAULT_HEARTBEAT_SECONDS * 1000;
  if (!/^\d{1,6}$/.test(raw))
    throw new UsageError(
      `REVLOOP_HEARTBEAT_SECONDS: ${JSON.stringify(raw)} is not a whole number of seconds (0 turns the heartbeat off)`,
    );
  return Number(raw) * 1000;
}

interface RunProgress {
  /** When this process first heard of the run (a worker's runs start long after the worker). */
  since: number;
  round: number;
  stage: string;
  agent: string;
  spent: number;
  done: number;
  total: number;
}

export function progressPrinter(io: CliIO, mode: ProgressMode, clock: ProgressClock = realClock) {
  // Read in either mode, so that a bad value is said before any run starts, on a terminal too.
  const heartbeat = heartbeatMs(io.env);
  const every = mode === 'live' ? REDRAW_MS : heartbeat;
  const started = clock.now();
  // Per run: a worker drives several at once; a run leaves the map when it ends.
  const runs = new Map<string, RunProgress>();
  let latest = '';
  const elapsed = (since: number) => {
    const ms = clock.now() - since;
    if (mode === 'live') return `${(ms / 1000).toFixed(1)}s`;
    const secs = Math.floor(ms / 1000);
    return `${Math.floor(secs / 60)}m${String(secs % 60).padStart(2, '0')}s`;
  };
  const calls = (p: RunProgress) =>
    p.total > 0 ? ` · ${Math.min(p.done, p.total)} of ${p.total} calls done` : '';
  const draw = () => {
    if (mode === 'live') {
      const p = runs.get(latest);
      if (!p) return;
      const line = `revloop: round ${p.round} · ${p.stage}${calls(p)}${p.agent ? ` · ${p.agent}` : ''} · ${elapsed(started)} · $${p.spent.toFixed(4)}`;
      io.progress(`\r\x1b[2K${terminalSafe(line)}`);
      return;
    }
    for (const [id, p] of runs)
      io.stderr(
        `revloop: run ${id} still running after ${elapsed(p.since)}: round ${p.round} · ${p.stage}${calls(p)} · $${p.spent.toFixed(4)} spent\n`,
      );
  };
  const onEvent = (e: LoopEvent) => {
    if (e.kind === 'end') {
      runs.delete(e.runId);
      return;
    }
    let p = runs.get(e.runId);
    if (!p) {
      p = { since: clock.now(), round: 0, stage: 'admit', agent: '', spent: 0, done: 0, total: 0 };
      runs.set(e.runId, p);
    }
    latest = e.runId;
    if (e.kind === 'stage')
      Object.assign(p, { round: e.round, stage: e.stage, agent: '', done: 0, total: 0 });
    else if (e.kind === 'calls') p.total = e.total;
    else if (e.kind === 'call') p.agent = `${e.name}${e.attempt > 1 ? ` (attempt ${e.attempt})` : ''}`;
    else if (e.kind === 'call_done') {
      p.spent += e.costUsd;
      if (e.class === 'ok' || e.class === 'recorded' || e.class === 'reused') p.done++;
    } else if (e.kind === 'retry') p.agent = `${e.name}: ${e.class}, retrying in ${Math.round(e.delayMs)} ms`;
    if (mode === 'live') draw();
  };
  const stop = every > 0 ? clock.every(every, draw) : () => undefined;
  let ended = false;
  return {
    onEvent,
    done: () => {
      if (ended) return;
      ended = true;
      stop();
      if (mode === 'live') io.progress('\r\x1b[2K');
    },
  };
}
