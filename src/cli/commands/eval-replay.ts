/** `revloop eval replay RUN… --reviewer NAME --with FILE`: recorded prompts sent to another reviewer config. */
import { resolve } from 'node:path';
import { UsageError } from '../../core/errors.js';
import { replayAgreement } from '../../eval/replay.js';
import { openRepo } from '../context.js';
import type { EvalOpts } from '../eval-opts.js';
import { Exit } from '../exit-codes.js';
import { type Command, printJson } from '../io.js';

const evalReplay: Command<EvalOpts> = async (args, opts, io) => {
  if (args.length === 0) throw new UsageError('eval replay: give one or more run ids');
  if (!opts.reviewer || !opts.with)
    throw new UsageError('eval replay: --reviewer NAME and --with FILE are required');
  const { store, deps } = await openRepo(io, opts, undefined, { readonly: true });
  try {
    const res = await replayAgreement(deps, args, {
      reviewer: opts.reviewer,
      withConfig: resolve(io.cwd, opts.with),
      window: opts.window ? Number(opts.window) : 3,
    });
    if (opts.json) printJson(io, res);
    else {
      for (const r of res.runs)
        io.stdout(
          `${r.runId}: ${r.prompts} prompt(s): blockers kept ${r.kept}, lost ${r.lost}, new ${r.new}${r.failed.length ? `; ${r.failed.length} without a usable reply (${r.failed.map((f) => f.class).join(', ')})` : ''}${r.missing ? `; ${r.missing} prompt(s) no longer on this machine` : ''}\n`,
        );
      io.stdout(`total: kept ${res.total.kept}, lost ${res.total.lost}, new ${res.total.new}\n`);
    }
    // A prompt with no usable reply is a missing result: never reported as full agreement.
    const incomplete = res.runs.some((r) => r.failed.length > 0 || r.missing > 0);
    return incomplete ? Exit.evalIncomplete : Exit.ok;
  } finally {
    await store.close();
  }
};

export default evalReplay;
