/** `revloop sim`: Loop Lab's Monte-Carlo model (docs/sim.md). Parsing and printing only. */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { UsageError } from '../../core/errors.js';
import { writeFileAtomic } from '../../io/atomic-file.js';
import { renderSvgChart } from '../../report/chart-svg.js';
import {
  type FitLog,
  fitRoundLogs,
  OVERRIDE_KEYS,
  parseFitText,
  renderFitReport,
  renderSimReport,
  renderSweepReport,
  resolveParams,
  type SimOverrides,
  simChartSpec,
  simulate,
  sweep,
} from '../../sim/index.js';
import { Exit } from '../exit-codes.js';
import { type Command, printJson } from '../io.js';

interface SimOptions extends Record<string, unknown> {
  preset?: string;
  fit?: string[];
  sweep?: boolean;
  svg?: string;
  json?: boolean;
}

async function readLogs(files: string[], cwd: string): Promise<FitLog[]> {
  const logs: FitLog[] = [];
  for (const file of files) {
    let text: string;
    try {
      text = await readFile(resolve(cwd, file), 'utf8');
    } catch (err) {
      throw new UsageError(`--fit: cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`, {
        file,
      });
    }
    logs.push(...parseFitText(file, text));
  }
  return logs;
}

const sim: Command<SimOptions> = async (_args, opts, io) => {
  const overrides: SimOverrides = {};
  for (const key of OVERRIDE_KEYS) {
    const v = opts[key];
    if (typeof v === 'string') overrides[key] = v;
  }
  // A fitted team replaces the preset's environment; explicit flags still win over both.
  const fit = opts.fit?.length ? fitRoundLogs(await readLogs(opts.fit, io.cwd)) : null;
  const params = resolveParams(opts.preset ?? null, overrides, fit?.environment);
  if (opts.sweep) {
    const swept = sweep(params);
    if (opts.json) printJson(io, fit ? { fit, params, sweep: swept } : { params, sweep: swept });
    else io.stdout(fit ? `${renderFitReport(fit)}\n${renderSweepReport(swept)}` : renderSweepReport(swept));
    return Exit.ok;
  }
  const result = simulate(params);
  if (opts.svg) writeFileAtomic(resolve(io.cwd, opts.svg), renderSvgChart(simChartSpec(result)));
  if (opts.json) printJson(io, fit ? { fit, ...result } : result);
  else io.stdout(fit ? `${renderFitReport(fit)}\n${renderSimReport(result)}` : renderSimReport(result));
  return Exit.ok;
};

export default sim;
