/** `revloop eval import --format martian|swe-prbench FILE... --out DIR [--repos DIR] [--split FILE]`: a downloaded benchmark as a corpus. */
import { resolve } from 'node:path';
import { UsageError } from '../../core/errors.js';
import { IMPORT_FORMATS, type ImportFormat, importBenchmark } from '../../eval/import/import.js';
import { createGit } from '../../git/index.js';
import type { EvalOpts } from '../eval-opts.js';
import { Exit } from '../exit-codes.js';
import { type Command, printJson } from '../io.js';
import { terminalSafe } from '../terminal-safe.js';

const evalImport: Command<EvalOpts> = async (args, opts, io) => {
  const format = opts.format as ImportFormat | undefined;
  if (!format || !IMPORT_FORMATS.includes(format))
    throw new UsageError(`eval import: --format must be ${IMPORT_FORMATS.join(' or ')}`);
  if (args.length === 0) throw new UsageError('eval import: give the downloaded file(s) to convert');
  if (!opts.out) throw new UsageError('eval import: --out DIR is required (where corpus.json is written)');
  if (opts.split && format !== 'swe-prbench')
    throw new UsageError('eval import: --split is for --format swe-prbench (its evals/eval_100.json)');
  const res = await importBenchmark({
    format,
    files: args.map((f) => resolve(io.cwd, f)),
    out: resolve(io.cwd, opts.out),
    repos: opts.repos ? resolve(io.cwd, opts.repos) : undefined,
    split: opts.split ? resolve(io.cwd, opts.split) : undefined,
    git: createGit(),
  });
  if (opts.json) printJson(io, res);
  else {
    const total = res.cases + res.notPresent.length;
    io.stdout(
      res.corpus
        ? `imported ${res.cases} of ${total} pull request(s) into ${res.corpus}\n`
        : `imported none of ${total} pull request(s): no corpus written\n`,
    );
    for (const n of res.notPresent) io.stdout(terminalSafe(`  not present: case ${n.id}: ${n.problem}\n`));
    if (res.notPresentFile) io.stdout(`listed in ${res.notPresentFile}\n`);
    if (res.corpus && res.proseDefects > 0)
      io.stdout(
        `${res.proseDefects} of its defects are prose: measure it with a judge: in --config (docs/eval.md)\n`,
      );
  }
  return res.notPresent.length === 0 ? Exit.ok : Exit.evalIncomplete;
};

export default evalImport;
