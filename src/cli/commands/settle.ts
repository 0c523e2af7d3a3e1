import { UsageError } from '../../core/errors.js';
import { openRepo } from '../context.js';
import { type Command, printJson } from '../io.js';

interface Opts {
  repo?: string;
  store?: string;
  by: string;
  decision: 'upheld' | 'overturned';
  note?: string;
  json?: boolean;
}

/** A named person's decision on a finding: disputed findings and edits to protected paths wait for one. */
const settle: Command<Opts> = async (args, opts, io) => {
  const id = args[0];
  if (!id) throw new UsageError('settle needs a FINDING id');
  const by = opts.by?.trim();
  if (!by) throw new UsageError('--by must name the person deciding');
  const { store, deps } = await openRepo(io, opts);
  try {
    const finding = await store.getFinding(id);
    if (!finding) throw new UsageError(`no finding matches "${id}" (see \`revloop status RUN\` for ids)`);
    const row = await store.settle(finding.id, {
      by,
      decision: opts.decision,
      note: opts.note ?? null,
      at: deps.clock.now(),
    });
    const run = await store.getRun(row.runId);
    const ended = run && run.status === 'completed';
    if (opts.json)
      printJson(io, {
        findingId: row.id,
        runId: row.runId,
        settlement: row.settlement,
        runStatus: run?.status ?? null,
      });
    else {
      io.stdout(
        `finding ${row.id} (${row.reviewer}: ${row.reported.claim.slice(0, 70)}) ${opts.decision} by ${by}\n`,
      );
      if (ended) {
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
