import { resolve } from 'node:path';
import { UsageError } from '../../core/errors.js';
import { roundLog } from '../../core/run-report.js';
import { writeFileAtomic } from '../../io/atomic-file.js';
import { escalationMarkdown } from '../../loop/escalation.js';
import { findRunOrThrow } from '../../loop/operations.js';
import { loadRunReport } from '../../loop/run-report-loader.js';
import { toGithubAnnotations, toJunit, toMarkdown, toRdjson, toSarif } from '../../report/index.js';
import { openRepo } from '../context.js';
import type { Command } from '../io.js';
import { jsonSafe } from '../terminal-safe.js';

interface Opts {
  repo?: string;
  store?: string;
  format: string;
  out?: string;
}

const FORMATS = ['rounds', 'sarif', 'markdown', 'junit', 'github', 'escalation', 'rdjson'] as const;

/** Reports of one run: the round log `analyze` reads, and what CI systems read. */
const exportRun: Command<Opts> = async (args, opts, io) => {
  if (!FORMATS.includes(opts.format as (typeof FORMATS)[number]))
    throw new UsageError(`unknown --format "${opts.format}"`);
  const { store, deps } = await openRepo(io, opts, undefined, { readonly: true });
  try {
    const run = await findRunOrThrow(deps, args[0] ?? '');
    const report = await loadRunReport(store, run.id);
    if (!report) throw new UsageError(`run ${run.id} vanished`);
    let text: string;
    switch (opts.format) {
      case 'rounds':
        text = `${JSON.stringify(roundLog(report), null, 2)}\n`;
        break;
      case 'sarif':
        text = `${JSON.stringify(toSarif(report), null, 2)}\n`;
        break;
      case 'junit':
        text = toJunit(report);
        break;
      case 'github':
        text = toGithubAnnotations(report);
        break;
      case 'escalation':
        text = escalationMarkdown(report);
        break;
      case 'rdjson':
        text = `${JSON.stringify(toRdjson(report), null, 2)}\n`;
        break;
      default:
        text = toMarkdown(report);
    }
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
