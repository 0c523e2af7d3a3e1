/**
 * A named person's settlement (invariant 16's decision), the one operation
 * behind `revloop settle` and the dashboard's settle form: the same input is
 * checked the same way and fails with the same error from both. Only the
 * way each surface names a field differs (`--by` on the command line, `by`
 * in the page's JSON), so an input error carries the field apart.
 */
import { SETTLE_DECISIONS } from '../core/choices.js';
import { UsageError } from '../core/errors.js';
import type { FindingRow, RunRow, Settlement } from '../core/ledger.js';
import type { LedgerQueries, RunLedger } from '../ports/store.js';
import { UnknownFindingError } from '../store/errors.js';

/** Longest name a settlement keeps: a person, not a document. */
const MAX_BY = 200;

/** An input the operation refuses before the ledger is read; `field` is the input's name. */
export class SettleInputError extends UsageError {
  constructor(
    readonly field: 'finding' | 'by' | 'decision',
    readonly problem: string,
  ) {
    super(`${field} ${problem}`, { field, problem });
  }
}

/** What a person sends, as read from flags or a JSON body (nothing trusted yet). */
export interface SettleRequest {
  finding: unknown;
  by: unknown;
  decision: unknown;
  note?: unknown;
}

export interface Settled {
  finding: FindingRow;
  /** The finding's run as it stands after the settlement (null if it vanished meanwhile). */
  run: RunRow | null;
}

/** The checked input: the person's name and note trimmed, an empty note none. */
export function parseSettleRequest(req: SettleRequest): {
  finding: string;
  decision: Settlement['decision'];
  by: string;
  note: string | null;
} {
  const finding = typeof req.finding === 'string' ? req.finding.trim() : '';
  if (!finding) throw new SettleInputError('finding', 'must name a finding id or a unique prefix of one');
  const by = typeof req.by === 'string' ? req.by.trim() : '';
  if (!by || by.length > MAX_BY)
    throw new SettleInputError('by', `must name the person deciding (1 to ${MAX_BY} characters)`);
  const decision = SETTLE_DECISIONS.find((d) => d === req.decision);
  if (!decision) throw new SettleInputError('decision', `must be ${SETTLE_DECISIONS.join(' or ')}`);
  const note = typeof req.note === 'string' && req.note.trim() ? req.note.trim() : null;
  return { finding, decision, by, note };
}

/**
 * Settles one finding, found by id or unique prefix. An unknown finding is
 * UnknownFindingError, a settled one AlreadySettledError (from the store, in
 * its transaction: two people racing cannot both settle).
 */
export async function settleFinding(
  store: LedgerQueries & Pick<RunLedger, 'settle'>,
  req: SettleRequest,
  now: number,
): Promise<Settled> {
  const input = parseSettleRequest(req);
  const found = await store.getFinding(input.finding);
  if (!found) throw new UnknownFindingError(input.finding);
  const finding = await store.settle(found.id, {
    by: input.by,
    decision: input.decision,
    note: input.note,
    at: now,
  });
  return { finding, run: await store.getRun(finding.runId) };
}
