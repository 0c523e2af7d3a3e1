/**
 * The `scripted` adapter: recorded replies from a JSON file, for the demo,
 * dry runs and benchmarks. Format in docs/scripted.md. A scripted reply goes
 * through the same parsing, drift and path checks as a live one.
 */
import { lstatSync, readFileSync, realpathSync } from 'node:fs';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { z } from 'zod';
import type { AgentConfig, ReviewerConfig } from '../core/config.js';
import { isInsideRepo } from '../core/replies.js';
import { CallClass } from '../core/types.js';
import { writeFileAtomic } from '../io/atomic-file.js';
import type { CallRequest, CallResult, Reviewer } from '../ports/reviewer.js';
import { labelFor, type ReviewerContext } from './command.js';
import { startDeadline } from './deadline.js';
import { fail, finishText, finishValue } from './reply-result.js';

const errorClasses = Object.values(CallClass).filter((c) => c !== 'ok') as [string, ...string[]];

const entrySchema = z.strictObject({
  when: z.string().optional(),
  /** Which of the reviewer's samples (`review.samples`) the entry answers; absent: any. */
  sample: z.number().int().nonnegative().optional(),
  reply: z.unknown().optional(),
  error: z.enum(errorClasses).optional(),
  detail: z.string().optional(),
  retryAfterMs: z.number().int().nonnegative().optional(),
  delayMs: z.number().int().nonnegative().optional(),
  times: z.number().int().positive().optional(),
  write: z.record(z.string(), z.string()).optional(),
});
export type ScriptEntry = z.infer<typeof entrySchema>;

// One entry or a list of them; normalised to a list so a bad field is reported by its path, not as "invalid union".
const entriesSchema = z.preprocess((v) => (Array.isArray(v) ? v : [v]), z.array(entrySchema));
const scriptSchema = z.record(z.string(), z.record(z.string(), entriesSchema));
export type Script = z.infer<typeof scriptSchema>;

/** Resolves `cfg.script` against the repository root unless absolute. */
export function scriptPath(cfg: AgentConfig | ReviewerConfig, repoRoot: string): string {
  const p = cfg.script ?? '';
  return isAbsolute(p) ? p : resolve(repoRoot, p);
}

/** Reads and validates a script file; throws with the JSON path of the first problem. */
export function loadScript(path: string): Script {
  const res = scriptSchema.safeParse(JSON.parse(readFileSync(path, 'utf8')));
  if (res.success) return res.data;
  const issue = res.error.issues[0];
  throw new Error(`${['$', ...(issue?.path ?? [])].join('.')}: ${issue?.message ?? 'invalid'}`);
}

export function createScriptedReviewer(cfg: AgentConfig | ReviewerConfig, ctx: ReviewerContext): Reviewer {
  const label = labelFor(ctx.role, ctx.name);
  const path = scriptPath(cfg, ctx.repoRoot);
  // `times` counts uses per adapter instance, so a script can say "429 once, then reply".
  const used = new Map<ScriptEntry, number>();
  let script: Script | null = null;
  try {
    script = loadScript(path);
  } catch {
    // reported by the first call, as a failed call
  }

  return {
    name: ctx.name,
    // Only an agent whose script writes files needs the checkout; an unreadable script is assumed to.
    usesCheckout:
      script === null || Object.values(script[ctx.name] ?? {}).some((l) => l.some((e) => e.write)),
    async call(req: CallRequest): Promise<CallResult> {
      try {
        script ??= loadScript(path);
      } catch (err) {
        return fail('failed', label, `cannot read script ${path}: ${(err as Error).message}`);
      }
      const entry = pick(script, req, used);
      if (!entry)
        return fail(
          'missing_context',
          label,
          `no scripted reply for reviewer ${req.name} round ${req.round}`,
        );
      used.set(entry, (used.get(entry) ?? 0) + 1);
      if (entry.delayMs) {
        const stopped = await sleep(entry.delayMs, req);
        if (stopped === 'deadline') return fail('timeout', label, 'no reply before the deadline');
        if (stopped === 'aborted')
          return fail('unknown', label, 'interrupted: the call was aborted by revloop');
      }
      if (entry.error) {
        const cls = entry.error as Exclude<CallClass, 'ok'>;
        return fail(cls, label, entry.detail ?? `scripted ${cls}`, entry.retryAfterMs);
      }
      if (entry.write) {
        const bad = applyWrites(req.repoDir, entry.write);
        if (bad) return fail('malformed', label, `scripted write escapes the repository: ${bad}`);
      }
      const finish = { role: req.role, label, pinnedModel: cfg.model };
      if (entry.reply === undefined)
        return fail('malformed', label, 'scripted entry has neither reply nor error');
      return typeof entry.reply === 'string'
        ? finishText(entry.reply, finish)
        : finishValue(entry.reply, finish);
    },
  };
}

function pick(script: Script, req: CallRequest, used: Map<ScriptEntry, number>): ScriptEntry | undefined {
  const byRound = script[req.name];
  if (!byRound) return undefined;
  const list = (k: string) => byRound[k] ?? [];
  return [...list(String(req.round)), ...list('*')].find(
    (e) =>
      (e.when === undefined || req.prompt.includes(e.when)) &&
      (e.sample === undefined || e.sample === (req.sample ?? 0)) &&
      (e.times === undefined || (used.get(e) ?? 0) < e.times),
  );
}

function sleep(ms: number, req: CallRequest): Promise<'done' | 'deadline' | 'aborted'> {
  const d = startDeadline(req.deadlineMs, req.signal);
  return new Promise((res) => {
    const t = setTimeout(() => {
      d.dispose();
      res('done');
    }, ms);
    const onStop = () => {
      clearTimeout(t);
      const cause = d.cause();
      d.dispose();
      res(cause ?? 'aborted');
    };
    if (d.signal.aborted) onStop();
    else d.signal.addEventListener('abort', onStop, { once: true });
  });
}

/** Applies edits; returns the first offending path (nothing is written then), or null. */
function applyWrites(repoDir: string, files: Record<string, string>): string | null {
  const root = realpathSync(repoDir);
  const targets: [string, string][] = [];
  for (const [rel, content] of Object.entries(files)) {
    if (!isInsideRepo(rel)) return rel;
    const abs = resolve(root, rel);
    if (!insideRoot(root, realExisting(abs))) return rel;
    targets.push([abs, content]);
  }
  for (const [abs, content] of targets) writeFileAtomic(abs, content);
  return null;
}

/** The real path of `p`, or of its nearest existing ancestor, so a symlinked directory cannot lead outside. */
function realExisting(p: string): string {
  let cur = p;
  for (;;) {
    try {
      lstatSync(cur);
      return realpathSync(cur);
    } catch {
      const up = dirname(cur);
      if (up === cur) return cur;
      cur = up;
    }
  }
}

function insideRoot(root: string, p: string): boolean {
  const rel = relative(root, p);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}
