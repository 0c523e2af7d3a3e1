/**
 * The Forge port's contract (src/forge/adapter.ts: `read`, `execute`),
 * written once and run against every executor (hono's `runTest({ newRouter,
 * skip })`): each case reads the forge, asks the pure planner, has the
 * executor carry the plan out and reads the forge again, against a loopback
 * forge that checks every request's documented shape. A case an executor
 * cannot run is skipped with its reason, printed after the run.
 */
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ForgeAdapter } from '../../src/forge/adapter.js';
import { ForgeRefusedError } from '../../src/forge/errors.js';
import { planPublication } from '../../src/forge/plan.js';
import { DEFAULT_PUBLISH_OPTIONS } from '../../src/forge/publish.js';
import type { ForgeName, RunView, ViewFinding } from '../../src/forge/types.js';
import { makeRepo, type TestRepo } from '../helpers/git-repo.js';

/** What a token may do: write everything, only read, or write but create no check run. */
export type Access = 'write' | 'read-only' | 'no-checks';

/** One loopback forge holding pull (merge) request 7. */
export interface ForgeHost {
  forge: ForgeName;
  /** The request now shows `head` over `base`, with the diff the real repository has. */
  push(repo: TestRepo, base: string, head: string): void;
  adapter(access: Access): Promise<ForgeAdapter>;
  /** Every text revloop wrote that the forge holds: summaries, comments, check titles and summaries. */
  texts(): string[];
  /** How many objects revloop created on the forge. */
  created(): number;
  /** Requests that did not conform to the forge's documented API. */
  violations(): string[];
  stop(): Promise<void>;
}

export interface ForgeImplementation {
  name: string;
  start(): Promise<ForgeHost>;
  skip?: { reason: string; cases: ForgeCase[] }[];
}

interface World {
  host: ForgeHost;
  repo: TestRepo;
  base: string;
  head: string;
}

const lines = (edit: (i: number) => string) =>
  `${Array.from({ length: 20 }, (_, i) => edit(i + 1)).join('\n')}\n`;

const finding = (id: string, line: number, over: Partial<ViewFinding> = {}): ViewFinding => ({
  id,
  fingerprint: id.padEnd(24, '0'),
  round: 1,
  revision: '',
  reviewer: 'correctness',
  severity: 'MAJOR',
  file: 'src/calc.js',
  line,
  endLine: line,
  claim: `claim ${id}`,
  failureScenario: 'two callers share the total and one sees the other deposit',
  violatedClause: null,
  because: null,
  why: null,
  ...over,
});

/** A completed run of change 7 reviewed at `w.head`, with `findings` standing in its one round. */
const view = (w: World, runId: string, findings: ViewFinding[]): RunView => ({
  runId,
  change: 'pr-7',
  status: 'completed',
  outcome: findings.length ? 'findings' : 'clear',
  stopReason: findings.length ? 'budget' : null,
  reason: null,
  detail: null,
  admittedHead: w.head,
  finalHead: w.head,
  base: w.base,
  rounds: [{ round: 1, head: w.head }],
  findings: findings.map((f) => ({ ...f, revision: w.head })),
  costUsd: 0.1,
  costBudgetUsd: 5,
  reviewers: ['correctness'],
  calls: { answered: 1, expected: 1 },
  files: null,
  prior: [],
});

/** What publishRun does once it has the run's view: read, plan, execute. */
async function publish(adapter: ForgeAdapter, v: RunView) {
  const state = await adapter.read();
  const plan = planPublication({
    view: v,
    state,
    record: null,
    suggestions: [],
    options: DEFAULT_PUBLISH_OPTIONS,
    forge: adapter.forge,
  });
  return { plan, done: await adapter.execute(plan, v.runId) };
}

type Case = (w: World) => Promise<void>;

export const FORGE_CASES = {
  'reads the live head and base the forge shows': async (w) => {
    const state = await (await w.host.adapter('write')).read();
    expect(state).toMatchObject({ head: w.head, base: w.base, summaries: [], threads: [] });
  },

  'publishing a run again writes nothing: its comments are found by fingerprint': async (w) => {
    const a = await w.host.adapter('write');
    const v = view(w, 'run-1', [finding('a1', 9), finding('b2', 11)]);
    const first = await publish(a, v);
    expect(first.done.created).toBe(2);
    const threads = (await a.read()).threads;
    expect(threads.map((t) => [t.fingerprint, t.runId, t.revision]).sort()).toEqual(
      v.findings.map((f) => [f.fingerprint, 'run-1', w.head]).sort(),
    );
    const created = w.host.created();
    const again = await publish(a, v);
    expect(again.plan.actions).toEqual([]);
    expect(again.done.writes).toBe(0);
    expect(w.host.created()).toBe(created);
  },

  'a run whose head is no longer the live head posts no finding, and says stale on the live head': async (
    w,
  ) => {
    const a = await w.host.adapter('write');
    w.repo.write(
      'src/calc.js',
      lines((i) => (i === 16 ? 'export const pushed = true;' : `line ${i}`)),
    );
    const pushed = w.repo.commit('a push after the review');
    w.host.push(w.repo, w.base, pushed);
    const { plan, done } = await publish(a, view(w, 'run-1', [finding('a1', 9)]));
    expect(plan.stale).toBe(true);
    expect(done.created).toBe(0);
    const state = await a.read();
    expect(state.head).toBe(pushed);
    expect(state.threads).toEqual([]);
    expect(state.summaries).toEqual([]);
    expect(state.checks.find((c) => c.sha === pushed)?.title).toMatch(/^stale: /);
    expect(state.checks.some((c) => c.sha === w.head)).toBe(false);
  },

  'each run has one review: a later comment of the run joins it, another run gets its own': async (w) => {
    const a = await w.host.adapter('write');
    await publish(a, view(w, 'run-1', [finding('a1', 9)]));
    await publish(a, view(w, 'run-1', [finding('a1', 9), finding('b2', 11)]));
    let state = await a.read();
    expect(state.summaries.map((s) => s.runId)).toEqual(['run-1']);
    expect(state.threads.map((t) => t.fingerprint).sort()).toEqual([
      'a1'.padEnd(24, '0'),
      'b2'.padEnd(24, '0'),
    ]);
    await publish(a, view(w, 'run-2', [finding('a1', 9), finding('b2', 11)]));
    state = await a.read();
    expect(state.summaries.map((s) => s.runId).sort()).toEqual(['run-1', 'run-2']);
    expect(state.threads).toHaveLength(2);
  },

  'reviewer text reaches the forge neutralised: no mention pings, no HTML': async (w) => {
    const a = await w.host.adapter('write');
    const claim = 'total is shared, @security-team see <img src=x onerror=alert(1)> and #12';
    await publish(a, view(w, 'run-1', [finding('a1', 9, { claim })]));
    const texts = w.host.texts();
    expect(texts.some((t) => t.includes('security'))).toBe(true);
    for (const t of texts) {
      expect(t).not.toMatch(/@security-team/);
      expect(t).not.toContain('<img');
      expect(t).not.toMatch(/(^|\s)#12\b/);
    }
  },

  'a finding that no longer stands has its thread resolved by the next run': async (w) => {
    const a = await w.host.adapter('write');
    await publish(a, view(w, 'run-1', [finding('a1', 9)]));
    const { done } = await publish(a, view(w, 'run-2', []));
    expect(done.resolved).toBe(1);
    const [thread] = (await a.read()).threads;
    expect(thread).toMatchObject({
      fingerprint: 'a1'.padEnd(24, '0'),
      resolved: true,
      resolvedByPerson: false,
    });
  },

  'a token that may not write is refused, naming what, with nothing written': async (w) => {
    const a = await w.host.adapter('read-only');
    const refused = await publish(a, view(w, 'run-1', [finding('a1', 9)])).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(ForgeRefusedError);
    expect(refused).toMatchObject({ written: 0, status: 403, what: expect.stringMatching(/^POST /) });
    expect(w.host.created()).toBe(0);
  },

  'a token that may not create check runs gets a commit status instead': async (w) => {
    const a = await w.host.adapter('no-checks');
    const { done, plan } = await publish(a, view(w, 'run-1', [finding('a1', 9)]));
    expect(done.check).toBe('status');
    expect((await a.read()).checks.find((c) => c.sha === w.head)?.title).toBe(plan.check.title);
  },
} as const satisfies Record<string, Case>;
export type ForgeCase = keyof typeof FORGE_CASES;

export function runForgeContract(impl: ForgeImplementation): void {
  const skipped = new Map<string, string>();
  for (const s of impl.skip ?? []) for (const c of s.cases) skipped.set(c, s.reason);

  describe(`Forge port contract: ${impl.name}`, () => {
    let w: World;
    beforeEach(async () => {
      const repo = await makeRepo();
      repo.write(
        'src/calc.js',
        lines((i) => `line ${i}`),
      );
      const base = repo.commit('base');
      repo.write(
        'src/calc.js',
        lines((i) => (i >= 9 && i <= 12 ? `export let total${i} = 0;` : `line ${i}`)),
      );
      const head = repo.commit('the change');
      const host = await impl.start();
      host.push(repo, base, head);
      w = { host, repo, base, head };
    });
    afterEach(async () => {
      // Every request, of every case, conformed to the forge's documented API.
      expect(w.host.violations()).toEqual([]);
      await w.host.stop();
      await w.repo.cleanup();
    });
    afterAll(() => {
      const lines = [...skipped].map(([c, reason]) => `  SKIP ${c}: ${reason}`);
      console.log(`Forge port contract, ${impl.name}: ${lines.length} case(s) skipped\n${lines.join('\n')}`);
    });

    it('every skip names a case and gives its reason', () => {
      for (const [c, reason] of skipped) {
        expect(Object.keys(FORGE_CASES), c).toContain(c);
        expect(reason.length, `${c}: a skip needs its reason`).toBeGreaterThan(20);
      }
    });

    for (const [name, run] of Object.entries(FORGE_CASES) as [ForgeCase, Case][]) {
      const reason = skipped.get(name);
      if (reason) it.skip(`${name} (skipped: ${reason})`, () => {});
      else it(name, () => run(w));
    }
  });
}
