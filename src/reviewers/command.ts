/**
 * The `command` adapter (DESIGN.md, reviewer protocol): any executable that
 * reads the prompt on stdin and prints the reply JSON on stdout. The
 * claude-code and codex presets reuse it with their own output readers.
 */
import type { AgentConfig, ReviewerConfig } from '../core/config.js';
import type { Role } from '../core/types.js';
import type { Confinement } from '../io/confine.js';
import type { ConfineRequest } from '../io/process-group.js';
import type { CallRequest, CallResult, Reviewer } from '../ports/reviewer.js';
import { type AgentProcessOutcome, MAX_STDOUT_BYTES, runAgentProcess } from './agent-process.js';
import { classifyExit, EXIT_TEMPFAIL } from './classify.js';
import { redact, secretValues } from './redact.js';
import { type FinishOptions, fail, finishText } from './reply-result.js';
import { agentGrant, type EnvGrant, roleEnv } from './role-env.js';

export interface ReviewerContext {
  role: Role;
  name: string;
  /** The repository root (relative paths in the config resolve against it). */
  repoRoot: string;
  /** The environment revloop runs in; adapters read nothing else. */
  env: NodeJS.ProcessEnv;
  /** The controller's confinement (io/confine.ts), resolved on first use; absent or null: unconfined. */
  confinement?: (() => Confinement | null) | undefined;
}

/**
 * Reads an agent's stdout into a result. Returning null hands the exit back
 * to the generic rule (non-zero exit is `failed`).
 */
export type OutputReader = (
  out: { stdout: string; code: number | null },
  finish: FinishOptions,
) => CallResult | null;

/** The plain protocol: exit 0 and the reply JSON on stdout. */
export const readPlainReply: OutputReader = ({ stdout, code }, finish) =>
  code === 0 ? finishText(stdout, finish) : null;

export interface CommandOptions {
  /** The argv, or the argv of one call (a preset that names the call's checkout in its flags). */
  argv: readonly string[] | ((req: CallRequest) => readonly string[]);
  read: OutputReader;
  /** Said after "command not found": how to get the executable a preset runs. */
  notFound?: string | undefined;
  /** Overrides for tests; defaults 2000 ms and 8 MiB. */
  killGraceMs?: number | undefined;
  maxStdoutBytes?: number | undefined;
}

/**
 * The environment of an agent call: the allowlist and what the agent is
 * granted (role-env.ts), plus the call's REVLOOP_* variables.
 */
export function agentEnv(base: NodeJS.ProcessEnv, grant: EnvGrant, req: CallRequest): NodeJS.ProcessEnv {
  return roleEnv(base, grant, {
    REVLOOP_ROLE: req.role,
    REVLOOP_REVIEWER: req.name,
    REVLOOP_ROUND: String(req.round),
    REVLOOP_BASE: req.base,
    REVLOOP_HEAD: req.head,
    REVLOOP_REPO: req.repoDir,
    REVLOOP_CALL_KEY: req.callKey,
    // Repeat sampling: a reviewer that draws its own randomness can seed it by the sample.
    ...(req.sample ? { REVLOOP_SAMPLE: String(req.sample) } : {}),
  });
}

/** A reviewer's and the refuter's checkout is read-only to them; the fixer's is its to edit. */
function confineRequest(ctx: ReviewerContext, req: CallRequest): ConfineRequest | undefined {
  const confinement = ctx.confinement?.() ?? null;
  if (!confinement) return undefined;
  return {
    confinement,
    view: { checkout: req.repoDir, writable: req.role === 'fixer', readOnlyDirs: req.readOnlyDirs },
  };
}

export function labelFor(role: Role, name: string): string {
  return `${role} "${name}"`;
}

export function createCommandReviewer(
  cfg: AgentConfig | ReviewerConfig,
  ctx: ReviewerContext,
  opts: CommandOptions,
): Reviewer {
  const label = labelFor(ctx.role, ctx.name);
  const secrets = secretValues(ctx.env);
  const grant = agentGrant(cfg);
  return {
    name: ctx.name,
    usesCheckout: true,
    async call(req: CallRequest): Promise<CallResult> {
      const argv = typeof opts.argv === 'function' ? opts.argv(req) : opts.argv;
      const outcome = await runAgentProcess({
        argv,
        cwd: req.repoDir,
        env: agentEnv(ctx.env, grant, req),
        stdin: req.prompt,
        deadlineMs: req.deadlineMs,
        signal: req.signal,
        killGraceMs: opts.killGraceMs,
        maxStdoutBytes: opts.maxStdoutBytes,
        confine: confineRequest(ctx, req),
      });
      const result = classifyOutcome(outcome, argv[0] ?? '', opts, {
        role: req.role,
        label,
        pinnedModel: cfg.model,
      });
      return result.ok ? result : { ...result, detail: redact(result.detail, secrets) };
    },
  };
}

function classifyOutcome(
  o: AgentProcessOutcome,
  executable: string,
  opts: CommandOptions,
  finish: FinishOptions,
): CallResult {
  const { label } = finish;
  switch (o.kind) {
    case 'spawn_error':
      if (o.errno === 'ENOENT')
        return fail(
          'failed',
          label,
          `command not found: ${executable}${opts.notFound ? ` (${opts.notFound})` : ''}`,
        );
      if (o.errno === 'EACCES') return fail('failed', label, `permission denied: ${executable}`);
      if (o.errno === 'ENOCWD') return fail('missing_context', label, o.message);
      return fail('failed', label, `could not start ${executable}: ${o.errno}`);
    case 'timeout':
      return fail('timeout', label, 'no reply before the deadline; its process group was killed');
    case 'aborted':
      return fail('unknown', label, 'interrupted: the call was aborted by revloop');
    case 'too_large':
      return fail(
        'malformed',
        label,
        `reply too large (over ${opts.maxStdoutBytes ?? MAX_STDOUT_BYTES} bytes)`,
      );
    case 'exited': {
      const tail = tailOf(o.stderrTail);
      if (o.code === EXIT_TEMPFAIL)
        return fail('unavailable', label, `exited ${EXIT_TEMPFAIL} (temporarily unavailable)${tail}`);
      const read = opts.read({ stdout: o.stdout, code: o.code }, finish);
      if (read) return read;
      if (o.signal) return fail('failed', label, `killed by ${o.signal}${tail}`);
      return fail(classifyExit(o.code), label, `exited with code ${o.code}${tail}`);
    }
  }
}

function tailOf(stderr: string): string {
  const t = stderr.trim();
  if (!t) return '';
  return `: ${t.length > 600 ? `…${t.slice(-600)}` : t}`;
}
