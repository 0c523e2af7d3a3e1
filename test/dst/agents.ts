import { createHash } from 'node:crypto';
/**
 * Simulated agents: a reviewer, a refuter and a fixer whose replies the
 * schedule's RNG picks from the reviewer protocol's whole range (passes,
 * findings with and without a scenario, findings on lines that do not exist,
 * every error class). The fixer edits its worktree in the simulated
 * repository. Every invocation is logged, so the checkers can compare the
 * ledger with what the agents were actually asked and answered.
 */
import type { CallClass, ReportedFinding, Role } from '../../src/core/types.js';
import type { CallRequest, CallResult, Reviewer } from '../../src/ports/reviewer.js';
import { splitLines } from './line-diff.js';
import type { Rng } from './rng.js';
import type { SimGit } from './sim-git.js';

export const CODE_FILE = 'src/calc.js';

export interface Invocation {
  step: number;
  proc: number;
  role: Role;
  name: string;
  round: number;
  callKey: string;
  head: string;
  class: CallClass;
  costUsd: number;
}

export interface AgentWorld {
  rng: Rng;
  git: SimGit;
  /** The scheduler's step counter: invocations are ordered against port calls. */
  step: () => number;
  log: Invocation[];
  /** How often an agent answers with an error class (0..1), drawn per schedule. */
  errorRate: number;
}

const ERRORS = {
  rate_limited: 3,
  unavailable: 3,
  timeout: 2,
  truncated: 2,
  malformed: 1,
  refused: 1,
  missing_context: 0.5,
  model_drift: 0.5,
  failed: 1,
} as const satisfies Partial<Record<CallClass, number>>;

/**
 * Whether an agent reads the checkout is its adapter's, fixed by the frozen
 * config: a function of the agent's name, the same in every process of a
 * schedule (a redraw by a resumed process would change an API reviewer's
 * prompt, hence its call key). About three in ten do.
 */
function usesCheckout(role: Role, name: string): boolean {
  if (role === 'fixer') return true;
  return createHash('sha1').update(`${role}:${name}`).digest()[0]! < 77;
}

export function simAgent(w: AgentWorld, proc: number, role: Role, name: string): Reviewer {
  return {
    name,
    usesCheckout: usesCheckout(role, name),
    async call(req: CallRequest): Promise<CallResult> {
      const res = answer(w, role, req);
      w.log.push({
        step: w.step(),
        proc,
        role,
        name,
        round: req.round,
        callKey: req.callKey,
        head: req.head,
        class: res.ok ? 'ok' : res.class,
        costUsd: res.ok ? res.costUsd : 0,
      });
      return res;
    },
  };
}

function answer(w: AgentWorld, role: Role, req: CallRequest): CallResult {
  const { rng } = w;
  if (rng.chance(w.errorRate)) {
    const cls = rng.weighted(ERRORS);
    return {
      ok: false,
      class: cls,
      detail: `simulated ${cls}`,
      ...(cls === 'rate_limited' && rng.chance(0.5) ? { retryAfterMs: rng.int(2000) } : {}),
    };
  }
  const costUsd = rng.chance(0.3) ? 0 : Math.round(rng.next() * 40) / 100;
  const ok = (reply: unknown): CallResult => ({ ok: true, reply, modelId: null, costUsd });
  if (role === 'refuter')
    return ok({ decision: rng.chance(0.6) ? 'upheld' : 'refuted', reason: 'simulated refuter' });
  if (role === 'fixer') return ok(fix(w, req));
  if (rng.chance(0.45)) return ok({ verdict: 'pass', findings: [] });
  const lines = splitLines(w.git.filesAt(req.head).get(CODE_FILE) ?? '');
  const findings: ReportedFinding[] = [];
  for (let i = 0, n = 1 + rng.int(2); i < n; i++) findings.push(finding(rng, lines.length));
  return ok({ verdict: 'findings', findings });
}

function finding(rng: Rng, fileLines: number): ReportedFinding {
  // Now and then a line past the end of the file: the controller must call that malformed.
  const line = rng.chance(0.05) ? fileLines + 5 : 1 + rng.int(Math.max(1, fileLines));
  const severity = rng.pick(['MAJOR', 'MODERATE', 'MINOR'] as const);
  const claim = `line ${line} ${rng.pick(['races', 'leaks', 'overflows'])}`;
  return {
    severity,
    file: CODE_FILE,
    line,
    endLine: Math.min(line + rng.int(2), Math.max(line, fileLines)),
    claim,
    // Without a scenario or clause a blocker is demoted (invariant 9).
    ...(rng.chance(0.75) ? { failureScenario: 'two callers interleave and the total is wrong' } : {}),
    ...(rng.chance(0.2) ? { missedBecause: 'the earlier pass read only the header' } : {}),
  };
}

/** Edits the worktree (one line rewritten, or none) and may dispute a blocker it was given. */
function fix(w: AgentWorld, req: CallRequest): { disputed: { finding: string; reason: string }[] } {
  const { rng } = w;
  const wt = w.git.worktree(req.repoDir);
  if (wt && rng.chance(0.8)) {
    const lines = splitLines(wt.files.get(CODE_FILE) ?? '');
    const at = rng.int(lines.length + 1);
    lines.splice(at, rng.chance(0.5) ? 1 : 0, `// fixed in round ${req.round} at ${at}`);
    wt.files.set(CODE_FILE, `${lines.join('\n')}\n`);
  }
  const ids = [...req.prompt.matchAll(/^- id: (\S+)$/gm)].map((m) => m[1] as string);
  if (ids.length > 0 && rng.chance(0.2))
    return { disputed: [{ finding: rng.pick(ids), reason: 'simulated dispute' }] };
  if (rng.chance(0.05)) return { disputed: [{ finding: 'f-unknown', reason: 'no such blocker' }] };
  return { disputed: [] };
}
