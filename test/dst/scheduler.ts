/**
 * The seeded scheduler: every port call of a simulated process passes
 * through it, and at each one it may delay (yield to other work, so
 * concurrent calls finish in another order, and move the virtual clock),
 * throw one of the port's error classes before the call or after it was
 * applied (a lost acknowledgement), crash the process (every later call of
 * that process fails, as if it had been killed), or stall it until another
 * owner took the run over. Each step is traced so a failing schedule can be
 * printed.
 */
import { GitError, UnknownRefError } from '../../src/git/errors.js';
import {
  StoreCorruptError,
  StoreFullError,
  StoreLockedError,
  StoreUnavailableError,
} from '../../src/store/errors.js';
import type { Rng } from './rng.js';

export type PortName = 'store' | 'git' | 'agent' | 'check';

export interface Step {
  n: number;
  proc: number;
  call: string;
  fault: string | null;
}

/** A simulated controller process. */
export interface Proc {
  id: number;
  dead: boolean;
  /** Crashes and stalls are drawn for it (not for the last process of a schedule, so the run ends). */
  crashes: boolean;
  /** No fault at all is drawn for it (a quiet machine: the schedule's last word). */
  quiet: boolean;
}

/** Thrown into a process that the schedule killed. */
export class SimCrash extends Error {
  constructor(
    readonly proc: number,
    readonly at: string,
  ) {
    super(`process ${proc} killed at ${at}`);
  }
}

export interface FaultProfile {
  /** Chance that a port call gets a fault at all. */
  rate: number;
  /** Relative weights of the kinds of fault. */
  weights: { delay: number; throwBefore: number; throwAfter: number; crash: number; stall: number };
}

const STORE_WRITES = new Set([
  'admit',
  'acquireLease',
  'claimNext',
  'heartbeat',
  'releaseLease',
  'beginRound',
  'beginAttempt',
  'endAttempt',
  'markInterruptedAttempts',
  'recordVerdict',
  'recordVerdicts',
  'completeStage',
  'finishRun',
  'setRecordPath',
  'settle',
]);

const GIT_WRITES = new Set([
  'addWorktree',
  'removeWorktree',
  'cleanWorktree',
  'resetWorktree',
  'commitAll',
  'updateRef',
  'fastForward',
]);

export const isStoreWrite = (method: string): boolean => STORE_WRITES.has(method);

const tick = () => new Promise<void>((r) => setImmediate(r));

export interface SchedulerHooks {
  /** Moves the virtual clock. */
  advance(ms: number): void;
  /** Runs while a process is stalled: another owner takes the run over (once its lease expired). */
  stall(proc: Proc): Promise<void>;
  /** Whether a stall may be simulated now (one at a time, and only while the run is live). */
  canStall(): boolean;
  /** Sees every store call of every process, with what it did (for the fencing checker). */
  observe?(
    proc: Proc,
    method: string,
    args: unknown[],
    out: { seq: number; step: number; applied: boolean; result?: unknown },
  ): void;
}

export class Scheduler {
  readonly trace: Step[] = [];
  private readonly injected = new WeakSet<object>();
  /** The order store calls took effect in (a memory store call applies when it is called). */
  private seq = 0;

  constructor(
    private readonly rng: Rng,
    private readonly profile: FaultProfile,
    private readonly hooks: SchedulerHooks,
  ) {}

  get step(): number {
    return this.trace.length;
  }

  /** Whether an error was put there by the schedule (not raised by revloop). */
  isInjected(err: unknown): boolean {
    return (typeof err === 'object' && err !== null && this.injected.has(err)) || err instanceof SimCrash;
  }

  /** The port as `proc` sees it: every method call is one step of the schedule. */
  wrap<T extends object>(target: T, port: PortName, proc: Proc): T {
    return new Proxy(target, {
      get: (t, key, recv) => {
        const v = Reflect.get(t, key, recv);
        if (typeof v !== 'function' || typeof key !== 'string') return v;
        return (...args: unknown[]) => this.call(proc, port, key, () => v.apply(t, args), args);
      },
    });
  }

  /** A stage boundary of the driver (its crash-point hook): a process may die here too. */
  boundary(proc: Proc, name: string, onPush: () => void): void {
    const drawn = proc.dead ? 'dead' : this.draw(proc, `boundary:${name}`, false);
    const fault = drawn === 'none' ? null : drawn;
    this.trace.push({ n: this.step + 1, proc: proc.id, call: `boundary ${name}`, fault });
    if (proc.dead || fault === 'crash') {
      proc.dead = true;
      throw new SimCrash(proc.id, name);
    }
    if (fault === 'push') onPush();
  }

  private async call(
    proc: Proc,
    port: PortName,
    method: string,
    run: () => unknown,
    args: unknown[],
  ): Promise<unknown> {
    const at = `${port}.${method}`;
    const write =
      port === 'store' ? STORE_WRITES.has(method) : port === 'git' ? GIT_WRITES.has(method) : true;
    const fault = proc.dead ? 'dead' : this.draw(proc, at, write);
    const n = this.step + 1;
    this.trace.push({ n, proc: proc.id, call: at, fault });
    if (proc.dead) throw new SimCrash(proc.id, at);
    if (fault === 'delay') {
      this.hooks.advance(this.rng.int(3) * this.rng.int(1500));
      for (let i = 1 + this.rng.int(4); i > 0; i--) await tick();
    }
    if (fault === 'crash') return this.kill(proc, at);
    if (fault === 'throw') throw this.error(port, method);
    if (fault === 'stall') await this.hooks.stall(proc);
    if (proc.dead) throw new SimCrash(proc.id, at);
    let result: unknown;
    const seq = ++this.seq;
    try {
      result = await run();
    } catch (err) {
      if (port === 'store') this.hooks.observe?.(proc, method, args, { seq, step: n, applied: false });
      throw err;
    }
    if (port === 'store') this.hooks.observe?.(proc, method, args, { seq, step: n, applied: true, result });
    if (fault === 'crash-after') return this.kill(proc, `${at} (after)`);
    if (fault === 'throw-after') throw this.error(port, method);
    return result;
  }

  private kill(proc: Proc, at: string): never {
    proc.dead = true;
    throw new SimCrash(proc.id, at);
  }

  private draw(proc: Proc, at: string, write: boolean): string | null {
    if (proc.quiet || !this.rng.chance(this.profile.rate)) return null;
    const w = { ...this.profile.weights };
    if (!proc.crashes) {
      w.crash = 0;
      w.stall = 0;
    }
    if (at.startsWith('boundary:')) {
      const pushable = /^boundary:before:(review|fix)$/.test(at);
      return this.rng.weighted({ crash: w.crash, push: pushable ? w.throwBefore / 4 : 0, none: w.delay });
    }
    if (!write || !at.startsWith('store.') || !this.hooks.canStall()) w.stall = 0;
    const kind = this.rng.weighted(w);
    switch (kind) {
      case 'delay':
        return 'delay';
      case 'throwBefore':
        return at.startsWith('agent.') || at.startsWith('check.') ? 'delay' : 'throw';
      case 'throwAfter':
        return write && !at.startsWith('agent.') && !at.startsWith('check.') ? 'throw-after' : 'delay';
      case 'crash':
        return this.rng.chance(0.5) ? 'crash' : 'crash-after';
      case 'stall':
        return 'stall';
    }
  }

  private error(port: PortName, method: string): Error {
    const where = `${port}.${method} (simulated)`;
    const err =
      port === 'store'
        ? this.rng.pick([
            () => new StoreUnavailableError(where, 'connection reset'),
            () => new StoreLockedError(where, 'database is locked'),
            () => new StoreFullError(where, 'disk full'),
            () => new StoreCorruptError(where, 'malformed page'),
          ])()
        : this.rng.pick([
            () => new GitError('git', [method], 128, 'fatal: simulated failure'),
            () => new UnknownRefError('HEAD', where),
          ])();
    this.injected.add(err);
    return err;
  }
}
