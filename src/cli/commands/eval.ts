/**
 * `revloop eval CORPUS --config FILE [--against FILE]`, `revloop eval mine`
 * and `revloop eval replay` (docs/eval.md). Parsing and printing only.
 */
import { resolve } from 'node:path';
import { UsageError } from '../../core/errors.js';
import type { EvalMode } from '../../eval/eval-config.js';
import { evaluate } from '../../eval/evaluate.js';
import { renderMarkdown, renderText } from '../../eval/report.js';
import { writeFileAtomic } from '../../io/atomic-file.js';
import type { EvalOpts } from '../eval-opts.js';
import { Exit } from '../exit-codes.js';
import { type CliIO, type Command, printJson } from '../io.js';
import { terminalSafe } from '../terminal-safe.js';

const int = (v: string | undefined, flag: string, dflt: number, min: number): number => {
  if (v === undefined) return dflt;
  if (!/^\d+$/.test(v) || Number(v) < min)
    throw new UsageError(`${flag}: "${v}" is not a whole number ≥ ${min}`);
  return Number(v);
};

/** One line on a terminal, rewritten in place: cases done of all, and the latest to start or end. */
function progress(io: CliIO, on: boolean) {
  if (!on) return undefined;
  let done = 0;
  return (
    label: string,
    _i: number,
    n: number,
    c: { id: string },
    phase: 'start' | 'end',
    r?: { ran: boolean },
  ) => {
    if (phase === 'end') done++;
    const what = phase === 'start' ? 'running' : r?.ran ? 'done' : 'NOT RUN';
    io.progress(`\r\x1b[2K${terminalSafe(`revloop eval ${label}: ${done}/${n} done · ${c.id} ${what}`)}`);
    if (done === n) {
      io.progress('\r\x1b[2K');
      done = 0;
    }
  };
}

const evalCommand: Command<EvalOpts> = async (args, opts, io) => {
  const [first, ...rest] = args;
  if (first === 'mine') return (await import('./eval-mine.js')).default(rest, opts, io);
  if (first === 'replay') return (await import('./eval-replay.js')).default(rest, opts, io);
  if (first === 'import') return (await import('./eval-import.js')).default(rest, opts, io);
  if (first === undefined)
    throw new UsageError('eval: give a corpus (a directory with corpus.json, or a JSON file)');
  if (rest.length > 0) throw new UsageError(`eval: one corpus at a time (got also "${rest[0]}")`);
  if (!opts.config)
    throw new UsageError('eval: --config FILE is required (the reviewer set and policy to measure)');
  const mode = (opts.mode ?? 'review') as EvalMode;
  if (mode !== 'review' && mode !== 'loop')
    throw new UsageError(`--mode: "${opts.mode}" is not review or loop`);
  const format = opts.json ? 'json' : (opts.format ?? 'text');
  if (!['text', 'json', 'markdown'].includes(format))
    throw new UsageError(`--format: "${format}" is not text, json or markdown`);
  const res = await evaluate({
    corpus: resolve(io.cwd, first),
    config: resolve(io.cwd, opts.config),
    against: opts.against ? resolve(io.cwd, opts.against) : undefined,
    mode,
    window: int(opts.window, '--window', 3, 0),
    env: io.env,
    signal: io.stopSignal,
    bootstrap: {
      seed: int(opts.seed, '--seed', 1, 0),
      resamples: int(opts.resamples, '--resamples', 1000, 1),
      level: 0.95,
    },
    keepDir: opts.keep ? resolve(io.cwd, opts.keep) : undefined,
    ledger: opts.ledger,
    jobs: int(opts.jobs, '--jobs', 4, 1),
    onCase: progress(io, io.isTTY && format === 'text' && !opts.out),
  });
  const body =
    format === 'json'
      ? `${JSON.stringify(res, null, 2)}\n`
      : format === 'markdown'
        ? renderMarkdown(res.primary, res.against ?? undefined)
        : renderText(res.primary, res.against ?? undefined);
  if (opts.out) {
    writeFileAtomic(resolve(io.cwd, opts.out), body);
    io.stdout(`${renderText(res.primary, res.against ?? undefined).split('\n')[0]}\nwrote ${opts.out}\n`);
  } else if (format === 'json') printJson(io, res);
  else io.stdout(body);
  const complete = res.primary.complete && (res.against?.other.complete ?? true);
  if (!complete)
    io.stderr(
      `revloop: eval incomplete: ${[res.primary, res.against?.other]
        .filter((s) => s && !s.complete)
        .map((s) => `${s?.totals.notRun} of ${s?.totals.cases} cases not run under ${s?.label}`)
        .join('; ')}\n`,
    );
  return complete ? Exit.ok : Exit.evalIncomplete;
};

export default evalCommand;
