import { resolve } from 'node:path';
import { UsageError } from '../../core/errors.js';
import { type RunReport, roundLog } from '../../core/run-report.js';
import { writeFileAtomic } from '../../io/atomic-file.js';
import { findRunOrThrow } from '../../loop/operations.js';
import { escalationMarkdown } from '../../loop/outputs/escalation.js';
import { loadOutputReport } from '../../loop/outputs/run-report-loader.js';
import { EXPORT_FORMATS, type ExportFormat } from '../../report/formats.js';
import { toGithubAnnotations, toJunit, toMarkdown, toRdjson, toSarif } from '../../report/index.js';
import { openRepo } from '../context.js';
import type { Command } from '../io.js';
import { jsonSafe } from '../terminal-safe.js';

interface Opts {
  repo?: string;
  store?: string;
  format: ExportFormat;
  out?: string;
}

const pretty = (v: unknown) => `${JSON.stringify(v, null, 2)}\n`;

/** One renderer per format: a format added to EXPORT_FORMATS does not compile without one. */
const RENDER: Record<ExportFormat, (report: RunReport) => string> = {
  rounds: (r) => pretty(roundLog(r)),
  sarif: (r) => pretty(toSarif(r)),
  markdown: toMarkdown,
  junit: toJunit,
  github: toGithubAnnotations,
  escalation: escalationMarkdown,
  rdjson: (r) => pretty(toRdjson(r)),
};

/** Reports of one run: the round log `analyze` reads, and what CI systems read. */
const exportRun: Command<Opts> = async (args, opts, io) => {
  // The CLI's `.choices` refuses others; a programmatic caller gets the same one line.
  if (!EXPORT_FORMATS.includes(opts.format)) throw new UsageError(`unknown --format "${opts.format}"`);
  const { store, deps } = await openRepo(io, opts, undefined, { readonly: true });
  try {
    const run = await findRunOrThrow(deps, args[0] ?? '');
    const report = await loadOutputReport(store, run.id, io.env);
    if (!report) throw new UsageError(`run ${run.id} vanished`);
    let text = RENDER[opts.format](report);
    if (!text.endsWith('\n')) text += '\n';
    if (opts.out) writeFileAtomic(resolve(io.cwd, opts.out), text);
    // JSON keeps parsing to the same value: what a terminal would obey becomes a JSON escape.
    else io.stdout(opts.format === 'rounds' || opts.format === 'sarif' ? jsonSafe(text) : text);
    return 0;
  } finally {
    await store.close();
  }
};

export default exportRun;
