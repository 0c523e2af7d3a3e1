/**
 * `revloop publish RUN --to github|gitlab`: one review with inline comments
 * and a check on the pull request's live head (src/forge). Exit 0 when the
 * pull request shows the run, 8 when the forge refused before anything was
 * written, 9 when it refused after some writes (publishing again completes
 * it); the ledger and the record are only read.
 */
import { resolve } from 'node:path';
import { loadRunConfig } from '../../config/loader.js';
import { INCOMPLETE_CONCLUSIONS, REVIEW_EVENTS } from '../../core/choices.js';
import { UsageError } from '../../core/errors.js';
import {
  DEFAULT_PUBLISH_OPTIONS,
  ForgeRefusedError,
  forgeAdapter,
  type PublishOptions,
  publishRun,
  resolveTarget,
} from '../../forge/index.js';
import { createGit } from '../../git/index.js';
import { findRunOrThrow } from '../../loop/operations.js';
import { openRepo } from '../context.js';
import { Exit } from '../exit-codes.js';
import { type CliIO, type Command, printJson } from '../io.js';

export interface PublishFlags {
  to?: string;
  repository?: string;
  pr?: string;
  apiUrl?: string;
  tokenEnv?: string;
  event?: string;
  suggestions?: boolean;
  suggestionLines?: string;
  incomplete?: string;
  key?: string[];
  keysFrom?: string;
}

interface Opts extends PublishFlags {
  repo?: string;
  store?: string;
  json?: boolean;
}

/** Defaults, then the run's config (`publish.<forge>`), then the flags. */
export function publishOptions(o: PublishFlags, fromConfig: Partial<PublishOptions> = {}): PublishOptions {
  const out = { ...DEFAULT_PUBLISH_OPTIONS, ...definedOnly(fromConfig) };
  if (o.event !== undefined) {
    out.event = oneOf('--event', REVIEW_EVENTS, o.event);
  }
  if (o.incomplete !== undefined) {
    out.incomplete = oneOf('--incomplete', INCOMPLETE_CONCLUSIONS, o.incomplete);
  }
  if (o.suggestionLines !== undefined) {
    if (!/^\d{1,4}$/.test(o.suggestionLines))
      throw new UsageError(`--suggestion-lines must be a number of lines, not "${o.suggestionLines}"`);
    out.suggestionLines = Number(o.suggestionLines);
  }
  if (o.suggestions === false) out.suggestions = false;
  return out;
}

/**
 * The CLI's `.choices` refuses anything else before this runs; a programmatic
 * caller gets one line from the same list.
 */
function oneOf<T extends string>(flag: string, choices: readonly T[], value: string): T {
  if (!(choices as readonly string[]).includes(value))
    throw new UsageError(`${flag} must be ${choices.join(' or ')}, not "${value}"`);
  return value as T;
}

const definedOnly = <T extends object>(o: T): Partial<T> =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;

/** The `publish:` keys of the config the run was admitted under, for the forge being published to. */
async function configuredOptions(
  ctx: Awaited<ReturnType<typeof openRepo>>,
  runId: string,
  forge: 'github' | 'gitlab',
): Promise<Partial<PublishOptions>> {
  const run = await ctx.store.getRun(runId);
  if (!run?.snapshot) return {};
  const config = await loadRunConfig(createGit(), ctx.root, run.snapshot);
  return config.publish[forge];
}

/** Publishes a run; shared by `publish` and `review --publish`. Returns the exit code of publication. */
export async function publishAndReport(
  io: CliIO,
  ctx: Awaited<ReturnType<typeof openRepo>>,
  runId: string,
  flags: PublishFlags,
  json: boolean,
  /** Leave the refusal's line to the caller (review --publish says it in its own one line). */
  quiet = false,
): Promise<{ code: number; result: Record<string, unknown> }> {
  const target = resolveTarget(flags, io.env);
  const options = publishOptions(flags, await configuredOptions(ctx, runId, target.forge));
  const adapter = await forgeAdapter(target);
  try {
    const r = await publishRun(
      { store: ctx.store, git: createGit(), repoRoot: ctx.root, env: io.env },
      { runId, adapter, options, keys: flags.key?.map((k) => resolve(io.cwd, k)), keysFrom: flags.keysFrom },
    );
    const result = {
      published: true,
      forge: r.forge,
      target: r.target,
      runId: r.runId,
      reviewId: r.reviewId,
      comments: { created: r.created, updated: r.updated, resolved: r.resolved },
      check: r.check,
      stale: r.stale,
      writes: r.writes,
    };
    if (!json)
      io.stdout(
        `revloop publish: ${r.target}: ${r.writes ? `${r.writes} write(s)` : 'already up to date'}; ${r.created} comment(s) created, ${r.updated} updated, ${r.resolved} resolved; check ${r.check.conclusion} on ${r.check.sha.slice(0, 7)}: ${r.check.title}\n`,
      );
    return { code: Exit.ok, result };
  } catch (err) {
    if (!(err instanceof ForgeRefusedError)) throw err;
    if (!quiet) io.stderr(`revloop publish: ${adapter.where}: ${err.message}\n`);
    const code = err.written ? Exit.publishedPartly : Exit.publishedNothing;
    return {
      code,
      result: {
        published: false,
        partly: err.written > 0,
        target: adapter.where,
        runId,
        error: err.message,
        status: err.status,
        readOnly: err.readOnly,
      },
    };
  }
}

const publish: Command<Opts> = async (args, opts, io) => {
  const ctx = await openRepo(io, opts);
  try {
    const run = await findRunOrThrow(ctx.deps, args[0] ?? '');
    const { code, result } = await publishAndReport(io, ctx, run.id, opts, Boolean(opts.json));
    if (opts.json) printJson(io, result);
    return code;
  } finally {
    await ctx.store.close();
  }
};

export default publish;
