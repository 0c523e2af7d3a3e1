/** `revloop sim`: Loop Lab's Monte-Carlo model (docs/sim.md). Parsing and printing only. */
import { resolve } from 'node:path';
import { writeFileAtomic } from '../../io/atomic-file.js';
import { renderSvgChart } from '../../report/chart-svg.js';
import {
  OVERRIDE_KEYS,
  renderSimReport,
  resolveParams,
  type SimOverrides,
  simChartSpec,
  simulate,
} from '../../sim/index.js';
import { Exit } from '../exit-codes.js';
import { type Command, printJson } from '../io.js';

interface SimOptions extends Record<string, unknown> {
  preset?: string;
  svg?: string;
  json?: boolean;
}

const sim: Command<SimOptions> = async (_args, opts, io) => {
  const overrides: SimOverrides = {};
  for (const key of OVERRIDE_KEYS) {
    const v = opts[key];
    if (typeof v === 'string') overrides[key] = v;
  }
  const result = simulate(resolveParams(opts.preset ?? null, overrides));
  if (opts.svg) writeFileAtomic(resolve(io.cwd, opts.svg), renderSvgChart(simChartSpec(result)));
  if (opts.json) printJson(io, result);
  else io.stdout(renderSimReport(result));
  return Exit.ok;
};

export default sim;
