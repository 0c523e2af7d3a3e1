/** The verdict row one call records, answered now or reused from an identical call: one shape for both. */
import type { NewVerdict, ReusedFrom } from '../../core/stage-results.js';
import type { Role, Stage } from '../../core/types.js';

export function verdictRow(
  run: { id: string },
  spec: { role: Role; name: string; round: number; stage: Stage; head: string },
  call: { key: string; promptDigest: string; reuseKey: string | null },
  answer: { modelId: string | null; reply: unknown; costUsd: number; reusedFrom?: ReusedFrom },
): NewVerdict {
  return {
    callKey: call.key,
    runId: run.id,
    round: spec.round,
    stage: spec.stage,
    role: spec.role,
    reviewer: spec.name,
    revision: spec.head,
    promptDigest: call.promptDigest,
    modelId: answer.modelId,
    reply: answer.reply,
    costUsd: answer.costUsd,
    ...(call.reuseKey !== null ? { reuseKey: call.reuseKey } : {}),
    ...(answer.reusedFrom ? { reusedFrom: answer.reusedFrom } : {}),
  };
}
