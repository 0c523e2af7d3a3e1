/**
 * `review --publish github|gitlab`: after the run, publish it to its pull
 * request. Publication never decides the exit code (the run's outcome
 * does): when the forge refuses (a fork's read-only token, a missing scope)
 * the reason is one line on stderr, and the job summary (GITHUB_STEP_SUMMARY)
 * and a SARIF file still carry the result.
 */
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RunReport } from '../core/run-report.js';
import { resolveTarget } from '../forge/index.js';
import { writeFileAtomic } from '../io/atomic-file.js';
import { toMarkdown, toSarif } from '../report/index.js';
import { type PublishFlags, publishAndReport } from './commands/publish.js';
import type { RepoContext } from './context.js';
import type { CliIO } from './io.js';

export type { PublishFlags };

type Publisher = (ctx: RepoContext, report: RunReport, json: boolean) => Promise<Record<string, unknown>>;

export const publishOnReview = {
  /** Checks the target (flags, token, PR) now; the returned function publishes a finished run. */
  prepare(opts: PublishFlags & { publish?: string }, io: CliIO): Publisher {
    const flags = { ...opts, to: opts.publish };
    resolveTarget(flags, io.env);
    return async (ctx, report, json) => {
      const { code, result } = await publishAndReport(io, ctx, report.run.id, flags, true, true);
      if (!json && code === 0) {
        const r = result as { target: string; check: { conclusion: string; sha: string } };
        io.stdout(`published to ${r.target}: check ${r.check.conclusion} on ${r.check.sha.slice(0, 7)}\n`);
      }
      if (code !== 0) {
        const sarif = join(ctx.root, '.revloop', `${report.run.id}.sarif`);
        writeFileAtomic(sarif, `${JSON.stringify(toSarif(report), null, 2)}\n`);
        if (io.env.GITHUB_STEP_SUMMARY) appendFileSync(io.env.GITHUB_STEP_SUMMARY, toMarkdown(report));
        const why = String((result as { error?: string }).error ?? 'refused');
        io.stderr(
          `revloop: publish to ${String(result.target)}: ${why}; ${io.env.GITHUB_STEP_SUMMARY ? 'the job summary and ' : ''}${sarif} carry the result\n`,
        );
        return { ...result, sarif };
      }
      return result;
    };
  },
};
