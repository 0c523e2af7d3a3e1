/**
 * The facts the refute planner answers from memory with (core/refute-memory.ts):
 * the refuter's first-hand decisions on this change, from its earlier runs and
 * this run's earlier rounds, and where each candidate's judged lines lie at the
 * revision of the finding it may answer (git).
 */
import type { FindingRow } from '../../core/ledger.js';
import {
  type JudgedRefutation,
  judgedRefutation,
  type MemoryFact,
  memoryCandidates,
} from '../../core/refute-memory.js';
import type { LoopDeps } from '../deps.js';
import type { LineFacts } from './line-facts.js';
import type { RunContext } from './run-context.js';

/** The first-hand refuter decisions of the change's runs other than `runId`. */
export async function changeRefutations(
  deps: Pick<LoopDeps, 'store' | 'hash'>,
  changeKey: string,
  runId: string,
): Promise<JudgedRefutation[]> {
  const out: JudgedRefutation[] = [];
  for (const run of await deps.store.listRuns({ changeKey })) {
    // The store's filter is trusted only as far as it is checked: another change never counts.
    if (run.id === runId || run.changeKey !== changeKey) continue;
    const refuter = run.snapshot.refuter?.identityDigest ?? null;
    for (const f of await deps.store.listFindings(run.id)) {
      const j = judgedRefutation(f, { changeKey, createdAt: run.createdAt, refuter }, deps.hash);
      if (j) out.push(j);
    }
  }
  return out;
}

/** The memory facts for `blockers` (this round's refutable findings), given the run's `findings`. */
export async function memoryFacts(
  ctx: RunContext,
  blockers: readonly FindingRow[],
  findings: readonly FindingRow[],
  lines: LineFacts,
): Promise<MemoryFact[]> {
  const refuter = ctx.snapshot.refuter?.identityDigest ?? null;
  if (refuter === null || blockers.every((f) => !f.content)) return [];
  const { hash } = ctx.deps;
  const run = ctx.run;
  const earlier = await ctx.priorRefutations(() => changeRefutations(ctx.deps, run.changeKey, run.id));
  const own = findings.flatMap((f) => {
    const j = judgedRefutation(f, { changeKey: run.changeKey, createdAt: run.createdAt, refuter }, hash);
    return j ? [j] : [];
  });
  const judged = [...earlier, ...own];
  const out: MemoryFact[] = [];
  for (const f of blockers) {
    for (const j of memoryCandidates(f, judged, hash)) {
      // Where the judged lines went at this finding's revision (git, once per pair of revisions).
      const now = await lines.mapRange(j.revision, f.revision, j.file, j.line, j.endLine).catch(() => null);
      out.push({ forFinding: f.id, judged: j, now });
    }
  }
  return out;
}
