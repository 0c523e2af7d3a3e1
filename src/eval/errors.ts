import { RevloopError } from '../core/errors.js';

/** A corpus that cannot be read or fails its schema; `where` names the file, case and field. Exit 2. */
export class CorpusError extends RevloopError {
  constructor(
    readonly where: string,
    readonly problem: string,
  ) {
    super('eval_corpus', `${where}: ${problem}`, { where, problem });
  }
}

/** One case that cannot run (its commits missing from its bundle, a defect outside the file). */
export class CaseError extends RevloopError {
  constructor(
    readonly caseId: string,
    readonly field: string,
    readonly problem: string,
  ) {
    super('eval_case', `case ${caseId}: ${field}: ${problem}`, { caseId, field, problem });
  }
}

/** A judge whose reply is not `{ "matches": boolean, "reason": string }`. */
export class JudgeReplyError extends RevloopError {
  constructor(
    readonly caseId: string,
    readonly problem: string,
  ) {
    super('eval_judge', `case ${caseId}: judge: ${problem}`, { caseId, problem });
  }
}
