import { UsageError } from '../../core/errors.js';
import { explainDemo } from '../../demo/explain.js';
import { runDemo } from '../../demo/run-demo.js';
import { Exit } from '../exit-codes.js';
import { type Command, printJson } from '../io.js';
import { progressMode, progressPrinter } from '../progress.js';
import { runJson } from '../run-json.js';

interface Opts {
  dir?: string;
  scenario: string;
  json?: boolean;
}

const demo: Command<Opts> = async (_args, opts, io) => {
  if (opts.scenario !== 'default' && opts.scenario !== 'oscillation')
    throw new UsageError(`unknown scenario "${opts.scenario}"`);
  const progress = progressPrinter(io, progressMode(io, opts.json));
  const res = await runDemo({
    dir: opts.dir,
    scenario: opts.scenario,
    env: io.env,
    signal: io.stopSignal,
    onEvent: progress.onEvent,
  });
  progress.done();
  const asDesigned = res.checks.every((c) => c.ok);
  if (opts.json)
    printJson(io, {
      dir: res.dir,
      scenario: opts.scenario,
      asDesigned,
      checks: res.checks,
      run: runJson(res.report, res.recordPath),
    });
  else io.stdout(explainDemo(opts.scenario, res, io.self));
  return asDesigned ? Exit.ok : Exit.findings;
};

export default demo;
