/**
 * Runs one agent executable for one call: no shell between revloop and the
 * agent's arguments, prompt on stdin, its own process group (killed with the
 * controller, see io/process-group.ts), killed as a group (TERM, then KILL
 * after a grace) at the deadline, stdout capped. Returns what happened as
 * data; classifying it is the adapter's job.
 */
import { existsSync } from 'node:fs';
import { type ConfineRequest, killGroup, startGroupLeader } from '../io/process-group.js';
import { startDeadline } from './deadline.js';

export interface AgentProcessSpec {
  argv: readonly string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  stdin: string;
  /** Absolute deadline, epoch ms. */
  deadlineMs: number;
  signal?: AbortSignal | undefined;
  /** Default 8 MiB: a reply larger than this is not a review. */
  maxStdoutBytes?: number | undefined;
  /** Between SIGTERM and SIGKILL; default 2000 ms. */
  killGraceMs?: number | undefined;
  /** Run under the confined runner (io/confine.ts). */
  confine?: ConfineRequest | undefined;
}

export type AgentProcessOutcome =
  | { kind: 'exited'; code: number | null; signal: NodeJS.Signals | null; stdout: string; stderrTail: string }
  | { kind: 'timeout'; stderrTail: string }
  | { kind: 'aborted'; stderrTail: string }
  | { kind: 'too_large'; stderrTail: string }
  | { kind: 'spawn_error'; errno: string; message: string };

export const MAX_STDOUT_BYTES = 8 * 1024 * 1024;
const STDERR_TAIL_BYTES = 4096;

export function runAgentProcess(spec: AgentProcessSpec): Promise<AgentProcessOutcome> {
  const [file, ...args] = spec.argv;
  if (file === undefined)
    return Promise.resolve({ kind: 'spawn_error', errno: 'EINVAL', message: 'empty command' });
  if (!existsSync(spec.cwd))
    return Promise.resolve({
      kind: 'spawn_error',
      errno: 'ENOCWD',
      message: `working directory not found: ${spec.cwd}`,
    });
  const deadline = startDeadline(spec.deadlineMs, spec.signal);
  if (deadline.signal.aborted) {
    const kind = deadline.cause() === 'aborted' ? 'aborted' : 'timeout';
    deadline.dispose();
    return Promise.resolve({ kind, stderrTail: '' });
  }
  const started = startGroupLeader([file, ...args], {
    cwd: spec.cwd,
    env: spec.env,
    stdin: 'pipe',
    confine: spec.confine,
  });
  if (!started.ok) {
    deadline.dispose();
    return Promise.resolve({ kind: 'spawn_error', errno: started.errno, message: started.message });
  }
  const { child, stdin, stdout, stderr, release } = started.leader;
  const maxBytes = spec.maxStdoutBytes ?? MAX_STDOUT_BYTES;
  const grace = spec.killGraceMs ?? 2000;

  return new Promise((resolve) => {
    const out: Buffer[] = [];
    let outBytes = 0;
    let errTail = Buffer.alloc(0);
    let stopped: 'timeout' | 'aborted' | 'too_large' | null = null;
    let killTimer: NodeJS.Timeout | undefined;
    let closeTimer: NodeJS.Timeout | undefined;
    let settled = false;

    const settle = (o: AgentProcessOutcome) => {
      if (settled) return;
      settled = true;
      deadline.dispose();
      if (killTimer) clearTimeout(killTimer);
      if (closeTimer) clearTimeout(closeTimer);
      resolve(o);
    };
    const stop = (why: 'timeout' | 'aborted' | 'too_large') => {
      if (stopped) return;
      stopped = why;
      killGroup(child.pid, 'SIGTERM');
      killTimer = setTimeout(() => killGroup(child.pid, 'SIGKILL'), grace);
    };
    const stderrTail = () => errTail.toString('utf8');
    const finish = (code: number | null, signal: NodeJS.Signals | null) => {
      if (stopped) settle({ kind: stopped, stderrTail: stderrTail() });
      else
        settle({
          kind: 'exited',
          code,
          signal,
          stdout: Buffer.concat(out).toString('utf8'),
          stderrTail: stderrTail(),
        });
    };

    deadline.signal.addEventListener(
      'abort',
      () => stop(deadline.cause() === 'aborted' ? 'aborted' : 'timeout'),
      {
        once: true,
      },
    );
    stdout.on('data', (b: Buffer) => {
      if (stopped) return;
      outBytes += b.length;
      if (outBytes > maxBytes) {
        out.length = 0;
        stop('too_large');
        return;
      }
      out.push(b);
    });
    stderr.on('data', (b: Buffer) => {
      errTail = Buffer.concat([errTail, b]);
      if (errTail.length > STDERR_TAIL_BYTES) errTail = errTail.subarray(errTail.length - STDERR_TAIL_BYTES);
    });
    // An agent that never reads its prompt closes stdin early: EPIPE is its choice, not a failure.
    stdin?.on('error', () => {});
    stdin?.end(spec.stdin);

    child.on('error', (err: NodeJS.ErrnoException) => {
      if (child.pid === undefined)
        settle({ kind: 'spawn_error', errno: err.code ?? 'EUNKNOWN', message: err.message });
    });
    child.on('exit', (code, signal) => {
      // The call ends with its leader: stragglers it left in the group are killed, not leaked
      // (the watchdog too; closing the lifeline would have it do the same).
      killGroup(child.pid, 'SIGKILL');
      release();
      // A process that escaped the group may hold the pipes open; do not wait on it forever.
      closeTimer = setTimeout(() => {
        stdout.destroy();
        stderr.destroy();
        finish(code, signal);
      }, grace + 1000);
    });
    child.on('close', (code, signal) => finish(code, signal));
  });
}
