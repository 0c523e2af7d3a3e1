/**
 * Fuzz (issue 4 item 6): arbitrary bytes, arbitrary JSON and mutated
 * near-valid replies fed to the real loop as reviewer, refuter and fixer
 * replies. Properties: nothing throws out of the controller, every run ends
 * in a terminal status, and a run ends `clear` only if every reply it was
 * given was valid (invariant 1).
 *
 * Efficiency: one real git repository for the file; git reads are memoised
 * (the repository does not change between cases, so a read is a pure
 * function of its arguments) and the run's worktree is reused; each case
 * gets a fresh in-memory ledger. Replies go through `finishText`, the exact
 * parser the command adapter applies to an agent's stdout.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunRole as Role } from '../../src/core/types.js';
import { createFixtureRepo } from '../../src/git/fixture-repo.js';
import { admit } from '../../src/loop/admission.js';
import { composeDeps } from '../../src/loop/compose.js';
import type { LoopDeps } from '../../src/loop/deps.js';
import { driveRun } from '../../src/loop/run/driver.js';
import type { Git } from '../../src/ports/git.js';
import type { CallResult, Reviewer } from '../../src/ports/reviewer.js';
import type { AdmitInput } from '../../src/ports/store.js';
import { finishText } from '../../src/reviewers/reply-result.js';
import { MemoryStore } from '../../src/store/memory.js';
import { BASE_FILE, CRITERIA, HEAD_FILE } from './helpers.js';

const CONFIG = `criteria: REVIEW.md
reviewers:
  - { name: correctness, command: [fuzz] }
  - { name: standards, command: [fuzz] }
refuter: { command: [fuzz] }
fixer: { command: [fuzz] }
budgets: { rounds: 3, wallSeconds: 600, costUsd: 1000 }
retry: { attempts: 2, baseDelayMs: 0, maxDelayMs: 1 }
`;

let dir: string;
let root: string;
let git: Git;
let realGit: Git;
/** The admission of the revision, taken once: each case admits it again into a fresh ledger. */
let admission: AdmitInput;
/** One run id for every case (each has its own ledger), so every case reuses one worktree. */
const RUN_ID = `rfuzz${process.pid}${Date.now().toString(36)}`;
const worktrees = () =>
  existsSync(join(tmpdir(), 'revloop-worktrees'))
    ? readdirSync(join(tmpdir(), 'revloop-worktrees'))
        .filter((e) => e.includes(RUN_ID))
        .map((e) => join(tmpdir(), 'revloop-worktrees', e))
    : [];

beforeAll(async () => {
  // tmpfs when there is one: records and prompts are fsynced on every run.
  root = mkdtempSync(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'revloop-fuzz-'));
  dir = join(root, 'repo');
  const repo = await createFixtureRepo(dir);
  await repo.commit(
    {
      '.gitignore': '.revloop/\n',
      'revloop.config.yaml': CONFIG,
      'REVIEW.md': CRITERIA,
      'src/calc.js': BASE_FILE,
    },
    'base',
  );
  await repo.branch('topic');
  await repo.commit({ 'src/calc.js': HEAD_FILE }, 'change');
  realGit = composeDeps({ store: new MemoryStore(), repoRoot: dir, env: {} }).git;
  git = memoGit(realGit);
  const capture = new MemoryStore();
  const realAdmit = capture.admit.bind(capture);
  capture.admit = async (input) => {
    admission = input;
    return realAdmit(input);
  };
  await admit(
    { ...composeDeps({ store: capture, repoRoot: dir, env: {} }), git, newRunId: () => RUN_ID },
    { repoDir: dir, headRef: 'topic', configFrom: 'base' },
  );
}, 300_000);
afterAll(async () => {
  for (const wt of worktrees()) {
    await realGit?.removeWorktree(dir, wt).catch(() => undefined);
    rmSync(wt, { recursive: true, force: true });
  }
  if (root) rmSync(root, { recursive: true, force: true });
});

/** Real git with reads memoised; the worktree reset and the fixer's empty commit are skipped when a no-op. */
function memoGit(real: Git): Git {
  const cache = new Map<string, Promise<unknown>>();
  const memo =
    <A extends unknown[], R>(name: string, f: (...a: A) => Promise<R>) =>
    (...a: A): Promise<R> => {
      const k = `${name}\0${JSON.stringify(a)}`;
      let v = cache.get(k) as Promise<R> | undefined;
      if (!v) {
        v = f(...a);
        cache.set(k, v);
        v.catch(() => cache.delete(k));
      }
      return v;
    };
  const resetTo = new Map<string, string>();
  return {
    ...real,
    root: memo('root', real.root),
    resolve: memo('resolve', real.resolve),
    commitExists: memo('commitExists', real.commitExists),
    mergeBase: memo('mergeBase', real.mergeBase),
    diffDigest: memo('diffDigest', real.diffDigest),
    diffText: memo('diffText', real.diffText),
    diffRead: memo('diffRead', real.diffRead),
    changedFiles: memo('changedFiles', real.changedFiles),
    hunks: memo('hunks', real.hunks),
    readFile: memo('readFile', real.readFile),
    // The fuzzed fixer never edits files, so the trees stay as they are.
    status: memo('status', real.status),
    commitAll: memo('commitAll', real.commitAll),
    async resetWorktree(d, sha) {
      if (resetTo.get(d) === sha) return;
      await real.resetWorktree(d, sha);
      resetTo.set(d, sha);
    },
    // The run id (and so the worktree) is the same in every case: keep it.
    removeWorktree: async () => undefined,
  };
}

type Replies = Record<Role, string[]>;

/** Agents that answer with the next fuzzed text for their role, parsed as the command adapter parses stdout. */
function fuzzDeps(replies: Replies, seen: CallResult[]): LoopDeps {
  const base = composeDeps({ store: new MemoryStore(), repoRoot: dir, env: {}, leaseTtlMs: 60_000 });
  const next: Record<Role, number> = { reviewer: 0, refuter: 0, fixer: 0 };
  return {
    ...base,
    git,
    newRunId: () => RUN_ID,
    stateDir: () => join(root, 'state'),
    createReviewer: (_cfg, ctx): Reviewer => ({
      name: ctx.name,
      usesCheckout: true,
      async call(req) {
        // The loop never calls a judge (an eval's role).
        const role = req.role as Role;
        const list = replies[role];
        const text = list.length ? (list[next[role]++ % list.length] as string) : '';
        const res = finishText(text, {
          role: req.role,
          label: `${req.role} "${req.name}"`,
          pinnedModel: undefined,
        });
        seen.push(res);
        return res;
      },
    }),
  };
}

async function drive(replies: Replies) {
  const seen: CallResult[] = [];
  const deps = fuzzDeps(replies, seen);
  const adm = await deps.store.admit(admission);
  if (adm.kind !== 'created') throw new Error(`admission: ${adm.kind}`);
  const lease = await deps.store.acquireLease(adm.run.id, deps.owner, deps.leaseTtlMs);
  if (!lease) throw new Error('no lease');
  const res = await driveRun(deps, lease);
  return { run: res.run, seen };
}

/** Plain checks, not expect(): a matcher per case costs more than the case. */
function checkRun(
  run: { status: string; outcome: string | null; reason: string | null },
  seen: CallResult[],
) {
  const fail = (what: string) => {
    throw new Error(`${what}: ${JSON.stringify({ run, seen })}`);
  };
  if (!['completed', 'failed', 'aborted', 'timed_out', 'unknown'].includes(run.status)) fail('not terminal');
  if (run.status !== 'completed' && run.outcome !== null) fail('outcome without completion');
  if (run.outcome === 'clear' && !seen.every((s) => s.ok)) fail('clear after an invalid reply');
  if (seen.some((s) => !s.ok) && run.status === 'completed') fail('completed after an invalid reply');
}

const finding = fc
  .record(
    {
      severity: fc.oneof(
        { weight: 19, arbitrary: fc.constantFrom('MAJOR', 'MODERATE', 'MINOR') },
        { weight: 1, arbitrary: fc.constantFrom('major', 'BLOCKER') },
      ),
      file: fc.oneof(
        // A file or line the revision does not have is malformed (checked after parsing).
        // (src/calc.js has 15 lines at the change.)
        { weight: 38, arbitrary: fc.constant('src/calc.js') },
        { weight: 1, arbitrary: fc.constantFrom('missing.js', 'REVIEW.md') },
        { weight: 1, arbitrary: fc.constantFrom('../outside.js', '/etc/passwd', '') },
      ),
      line: fc.oneof(
        { weight: 9, arbitrary: fc.integer({ min: 1, max: 15 }) },
        { weight: 1, arbitrary: fc.constantFrom(0, -2, 1.5) },
      ),
      endLine: fc.integer({ min: 1, max: 15 }),
      claim: fc.oneof(
        { weight: 19, arbitrary: fc.constantFrom('deposit reads total before an await', 'sub is wrong') },
        { weight: 1, arbitrary: fc.string() },
      ),
      failureScenario: fc.oneof(
        fc.constant('two concurrent deposit(5) calls both read 0 and write 5, so total is 5 not 10'),
        fc.string(),
      ),
      violatedClause: fc.constantFrom('1. Shared state must not be updated without a lock.', 'clause 9'),
      missedBecause: fc.string(),
    },
    { requiredKeys: ['severity', 'file', 'line', 'claim'] },
  )
  .map((f) =>
    // A range mostly ends on or after its line and within the file (one before it is malformed).
    f.endLine !== undefined && Number.isInteger(f.line) && f.line >= 1
      ? { ...f, endLine: Math.min(15, f.line + (f.endLine % 4) - 1) }
      : f,
  );
const extras = fc.record(
  {
    model: fc.constantFrom('m1', 'm2'),
    usage: fc.record({
      costUsd: fc.oneof(
        { weight: 9, arbitrary: fc.double({ noNaN: true, min: 0, max: 0.01 }) },
        { weight: 1, arbitrary: fc.constant(-1) },
      ),
    }),
  },
  { requiredKeys: [] },
);
const reviewerReply = fc.oneof(
  { weight: 4, arbitrary: extras.map((e) => ({ verdict: 'pass', findings: [], ...e })) },
  {
    weight: 5,
    arbitrary: fc
      .tuple(fc.array(finding, { minLength: 1, maxLength: 2 }), extras)
      .map(([f, e]) => ({ verdict: 'findings', findings: f, ...e })),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      verdict: fc.constantFrom('pass', 'findings', 'maybe'),
      findings: fc.array(finding, { maxLength: 2 }),
    }),
  },
);
const refuterReply = fc.record(
  {
    decision: fc.constantFrom('upheld', 'refuted', 'refuted', 'unsure'),
    reason: fc.oneof(
      { weight: 9, arbitrary: fc.constant('the scenario holds') },
      { weight: 1, arbitrary: fc.string() },
    ),
  },
  { requiredKeys: ['reason'] },
);
const fixerReply = fc.record(
  {
    disputed: fc.oneof(
      { weight: 3, arbitrary: fc.constant([]) },
      {
        weight: 1,
        arbitrary: fc.array(fc.record({ finding: fc.string(), reason: fc.string() }, { requiredKeys: [] }), {
          maxLength: 2,
        }),
      },
    ),
  },
  { requiredKeys: ['disputed'] },
);
/** Near-valid replies, serialised the ways agents print them. */
const printed = (value: fc.Arbitrary<unknown>) =>
  fc
    .tuple(value, fc.constantFrom(...Array(16).fill('plain'), 'fenced', 'fenced', 'prose', 'cut'))
    .map(([v, how]) => {
      const j = JSON.stringify(v);
      if (how === 'fenced') return `Here you go:\n\`\`\`json\n${j}\n\`\`\`\n`;
      if (how === 'prose') return `I reviewed it. ${j} Thanks!`;
      if (how === 'cut') return j.slice(0, Math.max(1, j.length - 3));
      return j;
    });
const bytes = fc.uint8Array({ maxLength: 200 }).map((b) => Buffer.from(b).toString('utf8'));
const anyJson = fc.json({ maxDepth: 3 });
const text = (valid: fc.Arbitrary<string>) =>
  fc.oneof(
    { weight: 1, arbitrary: bytes },
    { weight: 1, arbitrary: anyJson },
    { weight: 4, arbitrary: valid },
  );

const replies: fc.Arbitrary<Replies> = fc.record({
  reviewer: fc.array(text(printed(reviewerReply)), { minLength: 1, maxLength: 4 }),
  refuter: fc.array(text(printed(refuterReply)), { minLength: 1, maxLength: 3 }),
  fixer: fc.array(text(printed(fixerReply)), { minLength: 1, maxLength: 2 }),
});

/**
 * Cases per property; 2 properties of RUNS*2 each: 2,000 in all by default (REVLOOP_FUZZ_RUNS
 * raises it). Bounded by case count, never by time; each property's limit is several times what
 * it takes with both cores of a 2-core machine kept busy by another process.
 */
const RUNS = Number(process.env.REVLOOP_FUZZ_RUNS ?? 500);
const PROPERTY_TIMEOUT_MS = 900_000;

describe('fuzzed replies (invariant 1)', () => {
  it(
    'arbitrary bytes and JSON from every role: never throws, never clear on an invalid reply',
    async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.record({
            reviewer: fc.array(fc.oneof(bytes, anyJson), { minLength: 1, maxLength: 2 }),
            refuter: fc.array(fc.oneof(bytes, anyJson), { minLength: 1, maxLength: 2 }),
            fixer: fc.array(fc.oneof(bytes, anyJson), { minLength: 1, maxLength: 2 }),
          }),
          async (r) => {
            const { run, seen } = await drive(r);
            checkRun(run, seen);
          },
        ),
        { numRuns: RUNS * 2, seed: 20_261_130 },
      );
    },
    PROPERTY_TIMEOUT_MS,
  );

  it(
    'mutated near-valid replies walk the whole loop: never throws, clear only on valid replies',
    async () => {
      const ends = new Map<string, number>();
      await fc.assert(
        fc.asyncProperty(replies, async (r) => {
          const { run, seen } = await drive(r);
          checkRun(run, seen);
          const k = `${run.status}/${run.outcome ?? run.reason}`;
          ends.set(k, (ends.get(k) ?? 0) + 1);
        }),
        { numRuns: RUNS * 2, seed: 42 },
      );
      if (process.env.FUZZ_DEBUG) console.log(Object.fromEntries(ends));
      // The generator reaches clear, findings and failures, so the property is not vacuous.
      expect([...ends.keys()]).toEqual(
        expect.arrayContaining(['completed/clear', 'completed/findings', 'failed/malformed']),
      );
    },
    PROPERTY_TIMEOUT_MS,
  );
});
