/**
 * Runs one configured check (evidence for progress) in the run's worktree:
 * no shell, its own process group, killed at its timeout, output tail kept.
 */
import { spawn } from 'node:child_process';
import type { CheckResult } from '../core/progress.js';

const TAIL_BYTES = 4096;

export function runCheck(
  check: { name: string; run: string[]; timeoutSeconds: number },
  cwd: string,
  env: NodeJS.ProcessEnv,
  now: () => number,
): Promise<CheckResult> {
  const started = now();
  return new Promise((resolve) => {
    const [cmd, ...args] = check.run;
    let tail = Buffer.alloc(0);
    const keep = (chunk: Buffer) => {
      tail = Buffer.concat([tail, chunk]);
      if (tail.length > TAIL_BYTES) tail = tail.subarray(tail.length - TAIL_BYTES);
    };
    let child: ReturnType<typeof spawn>;
    try {
      child = spawn(cmd as string, args, { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    } catch (err) {
      resolve({
        name: check.name,
        exitCode: null,
        passed: false,
        tail: (err as Error).message,
        durationMs: 0,
      });
      return;
    }
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child.pid, 'SIGTERM');
      setTimeout(() => killGroup(child.pid, 'SIGKILL'), 2000).unref();
    }, check.timeoutSeconds * 1000);
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
      });
    };
    child.on('error', (err) => done(null, `\n[revloop: ${err.message}]`));
    child.on('close', (code) => done(code));
  });
}

function killGroup(pid: number | undefined, sig: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, sig);
  } catch {
    // already gone
  }
}
