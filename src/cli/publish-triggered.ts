/**
 * `revloop worker`'s part of the webhook service: a run admitted for a pull
 * request (its trigger, recorded by `revloop serve`) is published to that pull
 * request once it ends, through the very path `revloop publish` takes (one
 * review, the check on the live head, idempotent by fingerprint). Each
 * publication is claimed in the ledger first, so two workers never publish
 * one run at once, and a worker that died before publishing leaves the run to
 * the next worker's sweep. A superseded run is not published: its pull
 * request has a newer head, whose run will be.
 */
import { publishAndReport } from './commands/publish.js';
import type { RepoContext } from './context.js';
import { Exit } from './exit-codes.js';
import type { CliIO } from './io.js';

export interface TriggeredFlags {
  apiUrl?: string | undefined;
  tokenEnv?: string | undefined;
}

/** How long a claimed publication is this worker's before another may try it (a publish that failed midway). */
const CLAIM_MS = 5 * 60_000;

export function triggeredPublisher(io: CliIO, ctx: RepoContext, flags: TriggeredFlags, json: boolean) {
  let repo: Promise<string> | null = null;
  const line = (o: Record<string, unknown>, text: string) =>
    json ? io.stdout(`${JSON.stringify(o)}\n`) : io.stderr(`revloop worker: ${text}\n`);

  /** Publishes every ended, unpublished triggered run of this repository it can claim; returns how many it tried. */
  const sweep = async (): Promise<number> => {
    repo ??= ctx.deps.git.identity(ctx.root);
    const identity = await repo;
    let tried = 0;
    for (;;) {
      if (io.stopSignal.aborted) return tried;
      const t = await ctx.store.deliveries.claimPublication(identity, CLAIM_MS);
      if (!t) return tried;
      tried++;
      const run = await ctx.store.getRun(t.runId);
      const where = `${t.forge} ${t.repository}#${t.pr}`;
      if (!run || (run.status === 'aborted' && run.reason === 'superseded')) {
        await ctx.store.deliveries.endPublication(
          t.runId,
          `not published: ${run ? 'superseded' : 'no such run'}`,
        );
        line(
          { runId: t.runId, published: false, target: where, reason: 'superseded' },
          `run ${t.runId}: superseded, not published to ${where}`,
        );
        continue;
      }
      const pub = {
        to: t.forge,
        repository: t.repository,
        pr: String(t.pr),
        apiUrl: flags.apiUrl,
        tokenEnv: flags.tokenEnv,
      };
      try {
        const { code, result } = await publishAndReport(io, ctx, t.runId, pub, true, true);
        // Refused before any write (a read-only token, a PR gone): for good. Refused midway: the claim lapses and it is tried again.
        if (code !== Exit.publishedPartly)
          await ctx.store.deliveries.endPublication(
            t.runId,
            code === Exit.ok ? 'published' : `refused: ${String(result.error)}`,
          );
        line(
          { runId: t.runId, ...result },
          code === Exit.ok
            ? `run ${t.runId}: published to ${where}`
            : `run ${t.runId}: publish to ${where}: ${String(result.error)}`,
        );
      } catch (err) {
        // No token, no API: the claim lapses and a later sweep (or another worker) tries again.
        line(
          { runId: t.runId, published: false, target: where, error: (err as Error).message },
          `run ${t.runId}: publish to ${where}: ${(err as Error).message}`,
        );
      }
    }
  };

  /** Sweeps every `ms` until `signal` aborts (runs end in other processes too, and triggers may be recorded after a run ended). */
  const every = async (ms: number, signal: AbortSignal): Promise<void> => {
    while (!signal.aborted) {
      await sweep().catch((err: unknown) =>
        io.stderr(`revloop worker: publication sweep: ${(err as Error).message}\n`),
      );
      await new Promise<void>((done) => {
        const t = setTimeout(done, ms);
        signal.addEventListener(
          'abort',
          () => {
            clearTimeout(t);
            done();
          },
          { once: true },
        );
      });
    }
  };
  return { sweep, every };
}
