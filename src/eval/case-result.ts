/** What running one case produced: plain data, the input of scoring and of every report. */
import type { Severity } from '../core/types.js';
import type { Defect } from './corpus-schema.js';

export interface EvalFinding {
  reviewer: string;
  /** Severity after gating. */
  severity: Severity;
  file: string;
  line: number;
  endLine?: number | undefined;
  claim: string;
  refuted: boolean;
  /** A blocker: MAJOR or MODERATE after gating, and not refuted. */
  blocking: boolean;
}

interface CaseCommon {
  id: string;
  clean: boolean;
  defects: Defect[];
}

/** A case that ran to a completed review: its findings are scored. */
export interface RanCase extends CaseCommon {
  ran: true;
  runId: string;
  outcome: string | null;
  stopReason: string | null;
  reviewers: string[];
  /** Round-1 findings: the ones made at the head the defects are located at. */
  findings: EvalFinding[];
  rounds: number;
  costUsd: number;
  /** Agent calls the case's run made (a verdict reused from an earlier call is not one). */
  calls: number;
  seconds: number;
  /** Per finding index, the defect index it matched for its reviewer (null: none). */
  matches: (number | null)[];
  /** Pairs the judge decided (0 when no defect of the case needed it), and how many of them it was called for now (the rest replayed from the ledger). */
  judged?: { pairs: number; called: number } | undefined;
}

/** A case that could not run or did not complete: listed, never scored. */
export interface SkippedCase extends CaseCommon {
  ran: false;
  /** Which part was wrong, for the one-line message: `cases[3].head`, `run`. */
  field: string;
  error: string;
  runId?: string | undefined;
}

export type CaseResult = RanCase | SkippedCase;
