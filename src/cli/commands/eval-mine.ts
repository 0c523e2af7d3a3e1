/** `revloop eval mine --repo DIR --since REF [--out DIR]`: proposes cases from a repository's history. */
import { resolve } from 'node:path';
import { UsageError } from '../../core/errors.js';
import { mineCases } from '../../eval/mine.js';
import type { EvalOpts } from '../eval-opts.js';
import { Exit } from '../exit-codes.js';
import { type Command, printJson } from '../io.js';

const evalMine: Command<EvalOpts> = async (args, opts, io) => {
  if (args.length > 0) throw new UsageError(`eval mine: unexpected argument "${args[0]}"`);
  if (!opts.repo || !opts.since) throw new UsageError('eval mine: --repo DIR and --since REF are required');
  const res = await mineCases({
    repo: resolve(io.cwd, opts.repo),
    since: opts.since,
    out: resolve(io.cwd, opts.out ?? 'eval-corpus'),
    source: opts.source,
  });
  if (opts.json) printJson(io, res);
  else if (res.nothing) {
    io.stdout(`proposed no case: ${res.nothing}; nothing was written\n`);
    io.stdout('pass --source GLOB (repeatable) to say which files are source, or an earlier --since\n');
  } else {
    io.stdout(`proposed ${res.fixes} known-bug case(s) and ${res.clean} clean case(s) in ${res.corpus}\n`);
    for (const s of res.skipped) io.stdout(`  skipped ${s.sha.slice(0, 12)}: ${s.why}\n`);
    io.stdout(
      'curate them (drop what is not a real bug, check each defect line) before measuring with them\n',
    );
  }
  return Exit.ok;
};

export default evalMine;
