import { UsageError } from '../../core/errors.js';
import { explainDemo } from '../../demo/explain.js';
import { DEMO_SCENARIOS, type DemoScenario, runDemo } from '../../demo/run-demo.js';
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
  if (!isScenario(opts.scenario))
    throw new UsageError(
      `--scenario: unknown scenario "${opts.scenario}" (one of ${DEMO_SCENARIOS.join(', ')})`,
    );
  const scenario = opts.scenario;
  const progress = progressPrinter(io, progressMode(io, opts.json));
  const res = await runDemo({
    dir: opts.dir,
    scenario,
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
      // A scenario of several runs (before and after a push) lists them all, the last being `run`.
      ...(res.runs.length > 1 ? { runs: res.runs.map((r) => runJson(r.report, r.recordPath)) } : {}),
    });
  else io.stdout(explainDemo(scenario, res, io.self));
  return asDesigned ? Exit.ok : Exit.findings;
};

const isScenario = (s: string): s is DemoScenario => (DEMO_SCENARIOS as readonly string[]).includes(s);

export default demo;
