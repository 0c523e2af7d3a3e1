/** `revloop analyze FILE|-`: convergence and calibration from a round log (docs/sim.md). */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import {
  analyzeChartSpec,
  analyzeParsed,
  parseRoundLogText,
  renderAnalyzeReport,
} from '../../analyze/index.js';
import { UsageError } from '../../core/errors.js';
import { writeFileAtomic } from '../../io/atomic-file.js';
import { renderSvgChart } from '../../report/chart-svg.js';
import { Exit } from '../exit-codes.js';
import { type Command, printJson } from '../io.js';

interface AnalyzeOptions extends Record<string, unknown> {
  svg?: string;
  json?: boolean;
}

// CliIO carries no stdin, so `-` reads the process's standard input here, the one place that needs it.
async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

async function readInput(file: string, cwd: string): Promise<string> {
  if (file === '-') return readStdin();
  try {
    return await readFile(resolve(cwd, file), 'utf8');
  } catch (err) {
    throw new UsageError(
      `cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
      {
        file,
      },
    );
  }
}

const analyze: Command<AnalyzeOptions> = async (args, opts, io) => {
  const file = args[0];
  if (file === undefined) throw new UsageError('analyze: give a round log file, or - for stdin');
  const result = analyzeParsed(parseRoundLogText(await readInput(file, io.cwd)));
  if (opts.svg) writeFileAtomic(resolve(io.cwd, opts.svg), renderSvgChart(analyzeChartSpec(result)));
  if (opts.json) printJson(io, result);
  else io.stdout(renderAnalyzeReport(result));
  return Exit.ok;
};

export default analyze;
