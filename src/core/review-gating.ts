/**
 * The review planner: from the reviewers' replies, the frozen ignore rules,
 * the policy and the scope facts git gave, which findings are dropped (issue
 * 17), and how each other one is gated (invariants 9 and 11) with its reason.
 * The live review stage and replay both call it, so they cannot gate apart.
 */
import type { Hash } from './canonical-json.js';
import { gateScenario } from './gating.js';
import type { IgnoreMatcher } from './ignore.js';
import { findingFingerprint } from './keys.js';
import type { GateDecision } from './ledger.js';
import { matchSamples, type SampledFinding, unreproduced } from './samples.js';
import { gateScope, type ScopeFacts } from './scope-lock.js';
import type { DroppedFinding } from './stage-results.js';
import type { Policy, ReportedFinding, Reproduction, ReviewerReply, SampleRule, Severity } from './types.js';

/** One reviewer call's reply, in recorded (configured) order: reviewer, then chunk, then sample. */
export interface ReviewedCall {
  reviewer: string;
  callKey: string;
  reply: ReviewerReply;
  /** The call's chunk index, when the diff was reviewed in chunks. */
  chunk?: number | undefined;
  /** Which of the reviewer's samples on this prompt (0, 1, ...); absent: the reviewer was not sampled. */
  sample?: number | undefined;
}

/** A reported finding that is gated: not on an ignored path. */
export interface FindingToGate {
  id: string;
  reviewer: string;
  callKey: string;
  /** Its index in its call's reply. */
  index: number;
  reported: ReportedFinding;
  /** Under repeat sampling: how many of the samples drawn found it (absent: one was drawn). */
  reproduction?: Reproduction | undefined;
}

export interface GatedFinding extends FindingToGate {
  /** The severity after gating. */
  severity: Severity;
  gate: GateDecision;
}

/**
 * Splits the calls' findings into those dropped on an ignored path (with the
 * rule) and those to gate (with their stable ids), in recorded order. A
 * reviewer's chunk calls each see the whole change's file list, so each may
 * report the same finding on a file outside its chunk: one per fingerprint
 * (keys.ts) is kept across a reviewer's calls, the first in recorded order.
 */
export function findingsToGate(
  calls: readonly ReviewedCall[],
  ignoredBy: IgnoreMatcher,
  idOf: (callKey: string, index: number) => string,
  /** Null: every finding (a review recorded before findings were folded by fingerprint). */
  hash: Hash | null,
): { toGate: FindingToGate[]; dropped: DroppedFinding[] } {
  const toGate: FindingToGate[] = [];
  const dropped: DroppedFinding[] = [];
  for (const { reviewer, callKey, reply } of calls) {
    for (const [index, reported] of reply.findings.entries()) {
      const rule = ignoredBy(reported.file);
      if (rule !== null) dropped.push({ reviewer, callKey, index, file: reported.file, rule });
    }
  }
  // Fingerprint of a finding kept, and the call that reported it: the same call may name it twice.
  const keptBy = new Map<string, string>();
  for (const samples of samePrompt(calls)) {
    const first = samples[0] as ReviewedCall;
    const { reviewer } = first;
    for (const m of keptFindings(samples, ignoredBy, hash)) {
      const { callKey } = samples[m.sample] as ReviewedCall;
      if (hash !== null) {
        const print = findingFingerprint(reviewer, m.reported.file, m.reported.claim, hash);
        const kept = keptBy.get(print);
        if (kept !== undefined && kept !== callKey) continue;
        keptBy.set(print, callKey);
      }
      toGate.push({
        id: idOf(callKey, m.index),
        reviewer,
        callKey,
        index: m.index,
        reported: m.reported,
        ...(m.reproduction ? { reproduction: m.reproduction } : {}),
      });
    }
  }
  return { toGate, dropped };
}

/** The calls on one prompt (one reviewer, one chunk), its samples in order; in recorded order. */
function samePrompt(calls: readonly ReviewedCall[]): ReviewedCall[][] {
  const groups = new Map<string, ReviewedCall[]>();
  for (const [i, c] of calls.entries()) {
    // A call of a reviewer that was not sampled is a prompt of its own.
    const key = c.sample === undefined ? `call\0${i}` : `samples\0${c.reviewer}\0${c.chunk ?? 0}`;
    const list = groups.get(key) ?? [];
    list.push(c);
    groups.set(key, list);
  }
  return [...groups.values()].map((g) => [...g].sort((a, b) => (a.sample ?? 0) - (b.sample ?? 0)));
}

/**
 * The findings of one prompt's calls on kept paths: one sample's as they
 * are; several samples' matched (samples.ts), one per group with its count.
 * `sample` is the position among the calls.
 */
function keptFindings(
  samples: readonly ReviewedCall[],
  ignoredBy: IgnoreMatcher,
  hash: Hash | null,
): (SampledFinding & { reproduction?: Reproduction })[] {
  const all = samples.flatMap((c, sample) =>
    c.reply.findings.flatMap((reported, index) =>
      ignoredBy(reported.file) === null ? [{ sample, index, reported }] : [],
    ),
  );
  if (samples.length === 1) return all;
  const reviewer = samples[0]?.reviewer ?? '';
  // Without the hash (a review recorded before folding) claims match by their text alone.
  const printOf = (f: ReportedFinding) =>
    hash ? findingFingerprint(reviewer, f.file, f.claim, hash) : `${f.file}\n${f.claim}`;
  return matchSamples(all, samples.length, printOf);
}

/** Scope facts of a finding recorded without any (never passed): the lock does not apply. */
export const NO_PASS: ScopeFacts = { passedAt: null, touchedSincePass: true };

/**
 * Gating: U1 first (a vague blocker is MINOR whatever its scope), then
 * reproduction under repeat sampling (a MODERATE too few samples found is
 * MINOR), then the scope lock.
 */
export function gateFinding(
  f: ReportedFinding,
  criteria: string,
  facts: ScopeFacts,
  policy: Pick<Policy, 'requireScenario' | 'scopeLock'>,
  sampled?: { reproduction: Reproduction | undefined; rule: SampleRule | undefined },
): GateDecision {
  const g = gateScenario(f, criteria, policy.requireScenario);
  if (g.kind === 'demoted') return g;
  const r = sampled?.reproduction;
  if (r && unreproduced(f, r, sampled?.rule?.block ?? r.of))
    return { kind: 'demoted', rule: 'unreproduced', from: f.severity, seen: r.seen, of: r.of };
  return gateScope(f, facts, policy.scopeLock);
}

/** Every finding to gate, gated on its scope facts: a demoted one is recorded MINOR. */
export function gateFindings(
  toGate: readonly FindingToGate[],
  scope: Readonly<Record<string, ScopeFacts>>,
  criteria: string,
  policy: Pick<Policy, 'requireScenario' | 'scopeLock'>,
  /** Each reviewer's sampling, from the snapshot (none: one sample each). */
  rules: (reviewer: string) => SampleRule | undefined = () => undefined,
): GatedFinding[] {
  return toGate.map((f) => {
    const gate = gateFinding(f.reported, criteria, scope[f.id] ?? NO_PASS, policy, {
      reproduction: f.reproduction,
      rule: rules(f.reviewer),
    });
    return { ...f, gate, severity: gate.kind === 'demoted' ? 'MINOR' : f.reported.severity };
  });
}
