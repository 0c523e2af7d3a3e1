/**
 * Runs one configured check (evidence for progress) in the run's worktree:
 * no shell between revloop and its arguments, its own process group (killed
 * with the controller, see io/process-group.ts), killed at its timeout,
 * output tail kept.
 */
import type { CheckResult } from '../../core/progress.js';
import { type ConfineRequest, killGroup, startGroupLeader } from '../../io/process-group.js';

const TAIL_BYTES = 4096;

export function runCheck(
  check: { name: string; run: string[]; timeoutSeconds: number },
  cwd: string,
  env: NodeJS.ProcessEnv,
  now: () => number,
  confine?: ConfineRequest,
): Promise<CheckResult> {
  const started = now();
  return new Promise((resolve) => {
    let tail = Buffer.alloc(0);
    let timedOut = false;
    let timer: NodeJS.Timeout | undefined;
    const done = (exitCode: number | null, extra = '') => {
      clearTimeout(timer);
      const text =
        tail.toString('utf8') +
        extra +
        (timedOut ? `\n[revloop: killed after ${check.timeoutSeconds}s]` : '');
      resolve({
        name: check.name,
        exitCode,
        passed: exitCode === 0 && !timedOut,
        tail: text,
        durationMs: now() - started,
        ...(confine ? { confined: true as const } : {}),
      });
    };
    const [cmd, ...args] = check.run;
    if (cmd === undefined) return done(null, '\n[revloop: empty command]');
    let start: ReturnType<typeof startGroupLeader>;
    try {
      start = startGroupLeader([cmd, ...args], { cwd, env, stdin: 'ignore', confine });
    } catch (err) {
      return done(null, `\n[revloop: ${(err as Error).message}]`);
    }
    if (!start.ok) return done(null, `\n[revloop: ${start.message}]`);
    const { child, stdout, stderr, release } = start.leader;
    const keep = (chunk: Buffer) => {
      tail = Buffer.concat([tail, chunk]);
      if (tail.length > TAIL_BYTES) tail = tail.subarray(tail.length - TAIL_BYTES);
    };
    stdout.on('data', keep);
    stderr.on('data', keep);
    timer = setTimeout(() => {
      timedOut = true;
      killGroup(child.pid, 'SIGTERM');
      setTimeout(() => killGroup(child.pid, 'SIGKILL'), 2000).unref();
    }, check.timeoutSeconds * 1000);
    child.on('error', (err) => done(null, `\n[revloop: ${err.message}]`));
    // The check ends with its leader: the watchdog, let go, takes its stragglers with it.
    child.on('exit', () => release());
    child.on('close', (code) => done(code));
  });
}
