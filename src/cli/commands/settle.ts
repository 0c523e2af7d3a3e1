import type { SettleDecision } from '../../core/choices.js';
import { UsageError } from '../../core/errors.js';
import { parseSettleRequest, SettleInputError, settleFinding } from '../../loop/settle.js';
import { openRepo } from '../context.js';
import { type Command, printJson } from '../io.js';

interface Opts {
  repo?: string;
  store?: string;
  by: string;
  decision: SettleDecision;
  note?: string;
  json?: boolean;
}

/** How the command line names each input of the settle operation. */
const FLAG: Record<SettleInputError['field'], string> = {
  finding: 'FINDING',
  by: '--by',
  decision: '--decision',
};

/** A named person's decision on a finding: disputed findings and edits to protected paths wait for one. */
const settle: Command<Opts> = async (args, opts, io) => {
  const request = { finding: args[0], by: opts.by, decision: opts.decision, note: opts.note };
  // Bad input is refused before the ledger is opened; the operation checks it again, as the page's does.
  try {
    parseSettleRequest(request);
  } catch (err) {
    if (err instanceof SettleInputError) throw new UsageError(`${FLAG[err.field]} ${err.problem}`, err.data);
    throw err;
  }
  const { store, deps } = await openRepo(io, opts);
  try {
    const { finding: row, run } = await settleFinding(store, request, deps.clock.now());
    const decision = row.settlement?.decision;
    if (opts.json)
      printJson(io, {
        findingId: row.id,
        runId: row.runId,
        settlement: row.settlement,
        runStatus: run?.status ?? null,
      });
    else {
      io.stdout(
        `finding ${row.id} (${row.reviewer}: ${row.reported.claim.slice(0, 70)}) ${decision} by ${row.settlement?.by}\n`,
      );
      if (run?.status === 'completed') {
        io.stdout(
          `run ${row.runId} already ended ${run.outcome}; the settlement carries over to the same claim on the same content (another edit needs a new decision): run \`revloop review\` again to record a run that counts it\n`,
        );
      }
    }
    return 0;
  } finally {
    await store.close();
  }
};

export default settle;
