import { resolve } from 'node:path';
import type { ConfigSource } from '../../core/choices.js';
import { UsageError } from '../../core/errors.js';
import { rerunPhrase } from '../../core/run-report.js';
import { admit } from '../../loop/admission.js';
import { openRepo, trustFrom } from '../context.js';
import { Exit } from '../exit-codes.js';
import { type Command, printJson } from '../io.js';
import { rerunRequest } from '../rerun.js';

interface Opts {
  repo?: string;
  store?: string;
  base?: string;
  head: string;
  change?: string;
  config?: string;
  configFrom: ConfigSource;
  maxActive?: string;
  costBudget?: string;
  costWindow?: string;
  rerun?: boolean;
  reason?: string;
  json?: boolean;
}

const num = (flag: string, v: string | undefined, integer: boolean): number | undefined => {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0 || (integer && !Number.isInteger(n)))
    throw new UsageError(`${flag} must be a ${integer ? 'whole' : ''} number >= 0, got "${v}"`);
  return n;
};

/** Admit only: for CI jobs, cron and webhooks; `revloop worker` runs what is admitted. */
const enqueue: Command<Opts> = async (_args, opts, io) => {
  const limits = {
    maxActive: num('--max-active', opts.maxActive, true),
    costBudgetUsd: num('--cost-budget', opts.costBudget, false),
    costWindowSeconds: num('--cost-window', opts.costWindow, true),
  };
  const rerun = rerunRequest(opts, io.env);
  const { store, deps } = await openRepo(io, opts, undefined, {}, trustFrom(opts));
  try {
    const adm = await admit(deps, {
      repoDir: resolve(io.cwd, opts.repo ?? '.'),
      baseRef: opts.base,
      headRef: opts.head,
      change: opts.change,
      configPath: opts.config,
      configFrom: opts.configFrom,
      limits,
      rerun,
    });
    const r = adm.result;
    if (r.kind === 'deferred') {
      if (opts.json) printJson(io, { admitted: 'deferred', runId: null, limit: r.limit, detail: r.detail });
      else io.stderr(`revloop: admission deferred (${r.limit}): ${r.detail}\n`);
      return Exit.notCompleted;
    }
    if (opts.json)
      printJson(io, {
        admitted: r.kind,
        runId: r.run.id,
        status: r.run.status,
        outcome: r.run.outcome,
        rerun: r.run.rerun,
      });
    else
      io.stdout(
        `${r.kind === 'created' ? 'admitted' : 'already admitted'}: run ${r.run.id} (${r.run.status}${r.run.outcome ? ` / ${r.run.outcome}` : ''})${r.run.rerun ? `, ${rerunPhrase(r.run.rerun)}` : ''}\n`,
      );
    return Exit.ok;
  } finally {
    await store.close();
  }
};

export default enqueue;
