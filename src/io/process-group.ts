/**
 * Starting a process revloop waits on (an agent, a check) as the leader of
 * its own process group, so a deadline can kill everything it started, and
 * so that everything it started dies with revloop itself, even a kill -9'd
 * revloop, instead of running (and spending) for nobody.
 *
 * `/bin/sh` leaves a watchdog in the group, blocked reading fd 3 (one end of
 * a socket pair whose other end only revloop holds; the kernel closes it when
 * revloop dies), then `exec`s the command with exactly its argv, keeping the
 * group leader's pid. On end of file the watchdog kills the whole group. It
 * ignores TERM, so a deadline's TERM does not disarm it during the grace
 * before KILL. The command's path and arguments reach sh as positional
 * parameters, never as script text.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { agentHomeCopies, type ConfinedView, type Confinement, confinedArgv } from './confine.js';
import { findExecutable } from './executable.js';

const WATCHDOG = `(trap '' TERM; read -r _ <&3; kill -KILL 0) </dev/null >/dev/null 2>&1 & exec "$0" "$@"`;

export interface GroupLeader {
  child: ChildProcess;
  /** Null when started with stdin 'ignore'. */
  stdin: Writable | null;
  stdout: Readable;
  stderr: Readable;
  /** Closes revloop's end of the watchdog's line: the watchdog then kills the group. */
  release(): void;
}

export type StartResult =
  | { ok: true; leader: GroupLeader }
  | { ok: false; errno: 'ENOENT' | 'EACCES'; message: string };

/** A process to run confined (io/confine.ts): the controller's confinement and this process's view. */
export interface ConfineRequest {
  confinement: Confinement;
  view: ConfinedView;
}

export function startGroupLeader(
  argv: readonly [string, ...string[]],
  opts: {
    cwd: string;
    env: NodeJS.ProcessEnv;
    stdin: 'pipe' | 'ignore';
    confine?: ConfineRequest | undefined;
  },
): StartResult {
  const [file, ...args] = argv;
  // Found here, as spawn would search for it, so a missing or non-executable command is still
  // an error at start (sh would only exit 127 or 126).
  const found = findExecutable(file, opts.cwd, opts.env.PATH);
  if (!found.ok) return { ok: false, errno: found.errno, message: `spawn ${file} ${found.errno}` };
  if (opts.confine) {
    // bwrap leads the group; its PID namespace dies with it (--die-with-parent: with revloop too),
    // so no watchdog is needed, and no line to revloop reaches the sandbox.
    const { confinement } = opts.confine;
    const agentHomes = agentHomeCopies(opts.env);
    const view = { ...opts.confine.view, agentHomes: agentHomes.homes };
    const child = spawn(confinement.bwrap, confinedArgv(confinement, view, [found.path, ...args], opts.env), {
      cwd: opts.cwd,
      env: opts.env,
      detached: true,
      stdio: [opts.stdin, 'pipe', 'pipe'],
    });
    child.on('close', () => agentHomes.dispose());
    child.on('error', () => agentHomes.dispose());
    const [stdin, stdout, stderr] = child.stdio;
    if (!stdout || !stderr) throw new Error('spawn gave no pipes');
    return { ok: true, leader: { child, stdin: stdin ?? null, stdout, stderr, release: () => undefined } };
  }
  const child = spawn('/bin/sh', ['-c', WATCHDOG, found.path, ...args], {
    cwd: opts.cwd,
    env: opts.env,
    detached: true,
    // fd 3 is the watchdog's line: never written, only its end matters.
    stdio: [opts.stdin, 'pipe', 'pipe', 'pipe'],
  });
  const [stdin, stdout, stderr, lifeline] = child.stdio;
  if (!stdout || !stderr || !lifeline) throw new Error('spawn gave no pipes');
  return {
    ok: true,
    leader: { child, stdin: stdin ?? null, stdout, stderr, release: () => lifeline.destroy() },
  };
}

/** Sends a signal to the whole process group led by `pid`; a group already gone is fine. */
export function killGroup(pid: number | undefined, sig: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, sig);
  } catch {
    // ESRCH: every member has exited already.
  }
}
