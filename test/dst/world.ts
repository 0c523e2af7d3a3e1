/**
 * One schedule's world: the simulated repository (a base with the config,
 * criteria and code, a change on `topic`), the in-memory ledger on a virtual
 * clock, and the configuration the schedule's RNG drew. Processes are made
 * from it with their own owner and their own view of the ports.
 */
import { hostname } from 'node:os';
import { type LoadedConfig, loadConfigAt } from '../../src/config/loader.js';
import { canonicalJson } from '../../src/core/canonical-json.js';
import { admissionKey, snapshotKey } from '../../src/core/keys.js';
import type { CheckResult } from '../../src/core/progress.js';
import { writeFileAtomic } from '../../src/io/atomic-file.js';
import { sha256 } from '../../src/io/hash.js';
import { buildSnapshot } from '../../src/loop/admission.js';
import type { LoopDeps } from '../../src/loop/deps.js';
import type { AdmitInput } from '../../src/ports/store.js';
import { MemoryStore } from '../../src/store/memory.js';
import { type AgentWorld, CODE_FILE, type Invocation, simAgent } from './agents.js';
import type { Rng } from './rng.js';
import type { Proc, Scheduler } from './scheduler.js';
import { SimGit } from './sim-git.js';

export const CRITERIA = `# Review criteria

1. Shared state must not be updated without a lock.
2. Every public function handles a missing input.
`;

const BASE_CODE = ['export function add(a, b) {', '  return a + b;', '}', ''].join('\n');
const HEAD_CODE = `${BASE_CODE}
let total = 0;
export async function deposit(n) {
  const seen = total;
  await Promise.resolve();
  total = seen + n;
  return total;
}
`;

/**
 * A second file the change adds: with `chunked`, review.chunkBytes lets each
 * file's section through alone but never both, so every round's review is two
 * chunk calls per reviewer and records their verdicts by group commit.
 */
const NOTES_FILE = 'src/notes.js';
const NOTES_CODE = `${Array.from({ length: 20 }, (_, i) => `export const note${i} = 'a note of the change, ${i}';`).join('\n')}\n`;
const CHUNK_BYTES = 1200;

export const HEAD_REF = 'refs/heads/topic';
/** Leases outlive any schedule's real time, so the lease keeper's timer never fires in one. */
export const LEASE_TTL_MS = 120_000;

export interface SimConfig {
  reviewers: string[];
  refuter: boolean;
  fixer: boolean;
  checks: boolean;
  rounds: number;
  costUsd: number;
  wallSeconds: number;
  attempts: number;
  scopeLock: boolean;
  /** The review is split into chunks (issue 17): two calls per reviewer and round. */
  chunked: boolean;
}

export function drawConfig(rng: Rng): SimConfig {
  return {
    reviewers: ['correctness', 'standards', 'security'].slice(0, 1 + rng.int(3)),
    refuter: rng.chance(0.7),
    fixer: rng.chance(0.8),
    checks: rng.chance(0.4),
    rounds: 1 + rng.int(4),
    costUsd: rng.pick([0.3, 1, 100]),
    wallSeconds: rng.pick([60, 3600, 86_400]),
    attempts: 1 + rng.int(3),
    scopeLock: rng.chance(0.7),
    chunked: rng.chance(0.3),
  };
}

export function configYaml(c: SimConfig): string {
  const lines = ['criteria: REVIEW.md', 'reviewers:'];
  for (const r of c.reviewers) lines.push(`  - { name: ${r}, command: [sim] }`);
  if (c.refuter) lines.push('refuter: { command: [sim] }');
  if (c.fixer) lines.push('fixer: { command: [sim] }');
  if (c.checks) lines.push('checks: [ { name: unit, run: [sim-check] } ]');
  lines.push(`budgets: { rounds: ${c.rounds}, wallSeconds: ${c.wallSeconds}, costUsd: ${c.costUsd} }`);
  lines.push(`retry: { attempts: ${c.attempts}, baseDelayMs: 10, maxDelayMs: 200 }`);
  lines.push(`policy: { requireScenario: true, scopeLock: ${c.scopeLock}, stopWindow: 2 }`);
  if (c.chunked) lines.push(`review: { chunkBytes: ${CHUNK_BYTES} }`);
  return `${lines.join('\n')}\n`;
}

export class World {
  readonly git: SimGit;
  readonly store: MemoryStore;
  readonly log: Invocation[] = [];
  /** Steps at which the change's branch was pushed to (a new head). */
  readonly pushes: number[] = [];
  private t = 1_800_000_000_000;
  base = '';
  head = '';
  loaded!: LoadedConfig;
  admission!: AdmitInput;

  constructor(
    readonly rng: Rng,
    readonly config: SimConfig,
    readonly repoRoot: string,
    readonly stateDir: string,
    readonly runId: string,
    readonly errorRate: number,
  ) {
    this.git = new SimGit(repoRoot);
    this.store = new MemoryStore({ now: () => this.t });
  }

  now(): number {
    return this.t;
  }

  advance(ms: number): void {
    this.t += ms;
  }

  async init(): Promise<void> {
    const g = this.git;
    this.base = g.commit(null, {
      'revloop.config.yaml': configYaml(this.config),
      'REVIEW.md': CRITERIA,
      [CODE_FILE]: BASE_CODE,
    });
    this.head = g.commit(this.base, {
      ...Object.fromEntries(g.filesAt(this.base)),
      [CODE_FILE]: HEAD_CODE,
      ...(this.config.chunked ? { [NOTES_FILE]: NOTES_CODE } : {}),
    });
    g.setRef('refs/heads/main', this.base);
    g.setRef(HEAD_REF, this.head);
    this.loaded = await loadConfigAt(g, this.repoRoot, this.base);
    const diffDigest = await g.diffDigest(this.repoRoot, this.base, this.head);
    const settlementsDigest = sha256(canonicalJson([]));
    const repo = 'sim/repo';
    const snapshot = buildSnapshot(
      { repo, base: this.base, head: this.head, mergeBase: this.base, headRef: HEAD_REF },
      this.loaded,
      { change: 'topic', diffDigest, configFrom: 'base', settlementsDigest },
      sha256,
    );
    this.admission = {
      runId: this.runId,
      admissionKey: admissionKey(
        {
          repo,
          base: this.base,
          head: this.head,
          diffDigest,
          criteriaDigest: this.loaded.criteriaDigest,
          configDigest: sha256(`${this.loaded.configDigest}:base:${settlementsDigest}`),
        },
        sha256,
      ),
      changeKey: `${repo}#topic`,
      repo,
      snapshotKey: snapshotKey(snapshot, sha256),
      snapshot,
    };
  }

  /** A new push to the change's branch: the run's head is no longer the change's head. */
  push(step: number): void {
    const now = this.git.ref(HEAD_REF) as string;
    const files = new Map(this.git.filesAt(now));
    files.set('NOTES.md', `pushed at step ${step}\n`);
    this.git.setRef(HEAD_REF, this.git.commit(now, files));
    this.pushes.push(step);
  }

  /** The loop's dependencies as process `proc` sees them: every port through the scheduler. */
  deps(proc: Proc, sched: Scheduler): LoopDeps {
    const agents: AgentWorld = {
      rng: this.rng,
      git: this.git,
      step: () => sched.step,
      log: this.log,
      errorRate: this.errorRate,
    };
    let ids = 0;
    return {
      store: sched.wrap(this.store, 'store', proc),
      git: sched.wrap(this.git, 'git', proc),
      clock: {
        now: () => this.t,
        sleep: async (ms) => {
          this.t += ms;
          await new Promise<void>((r) => setImmediate(r));
        },
      },
      random: { next: () => this.rng.next() },
      hash: sha256,
      // A pid above Linux's pid_max: no process has it, so a takeover sees the owner dead.
      owner: { id: `sim-${this.runId}-p${proc.id}`, host: hostname(), pid: 4_194_304 + 1000 + proc.id },
      createReviewer: (_cfg, c) => sched.wrap(simAgent(agents, proc.id, c.role, c.name), 'agent', proc),
      env: {},
      leaseTtlMs: LEASE_TTL_MS,
      repoRoot: this.repoRoot,
      stateDir: () => this.stateDir,
      // Written before the promise is returned: a real write's completion would land between the
      // scheduler's steps at a moment set by the disk, so concurrent calls would interleave by speed.
      writeStateFile: async (path, data) => writeFileAtomic(path, data),
      crashPoint: (name) => sched.boundary(proc, name, () => this.push(sched.step)),
      newRunId: () => `${this.runId}-x${++ids}`,
      runCheck: sched.wrap(
        {
          run: async (check: { name: string }): Promise<CheckResult> => {
            const passed = this.rng.chance(0.6);
            return {
              name: check.name,
              exitCode: passed ? 0 : 1,
              passed,
              tail: passed ? 'ok' : 'FAIL',
              durationMs: 5,
            };
          },
        },
        'check',
        proc,
      ).run,
    };
  }
}
