/**
 * Starts a child process with piped output, through posix_spawn when the
 * native module is built (native/spawn.c), else through child_process.
 *
 * Why: child_process.spawn forks the controller. Fork copies its page tables
 * and the event loop waits for the child's exec: 1.5 to 3 ms per process at
 * the controller's size on a 2-core machine, and a fix round starts about ten
 * git processes, three of them in sequence. posix_spawn shares the parent's
 * memory until exec, so the same start costs about 0.2 ms.
 *
 * Both return the part of ChildProcess that revloop uses: stdout and stderr
 * streams, stdin when piped, `error` when the process could not start,
 * `close` (code, signal) once it has exited and its output has ended, kill.
 * `REVLOOP_NATIVE_SPAWN=0` turns the native path off.
 */
import { spawn as nodeSpawn } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { createRequire } from 'node:module';
import { Socket } from 'node:net';
import { constants } from 'node:os';
import { Readable, type Writable } from 'node:stream';
import { findExecutable } from './executable.js';

export interface SpawnedProcess extends EventEmitter {
  readonly stdout: Readable;
  readonly stderr: Readable;
  readonly stdin: Writable | null;
  kill(signal?: NodeJS.Signals): boolean;
  on(event: 'error', listener: (err: NodeJS.ErrnoException) => void): this;
  on(event: 'close', listener: (code: number | null, signal: NodeJS.Signals | null) => void): this;
}

export interface SpawnOptions {
  env: NodeJS.ProcessEnv;
  stdin: 'pipe' | 'ignore';
  /** Forces one path (the tests hold both to the same behaviour); default native when built. */
  via?: 'native' | 'node';
}

interface NativeSpawn {
  spawn(
    file: string,
    argv: string[],
    envp: string[],
    pipeStdin: boolean,
    onExit: (code: number, signal: number) => void,
  ): [pid: number, stdin: number, stdout: number, stderr: number];
  usable(): boolean;
}

let native: NativeSpawn | null | undefined;

/** The native module, when it is built, loads and this kernel supports it. */
export function nativeSpawn(): NativeSpawn | null {
  if (native !== undefined) return native;
  native = null;
  if (process.env.REVLOOP_NATIVE_SPAWN === '0' || process.platform !== 'linux') return native;
  try {
    const mod = createRequire(import.meta.url)(
      '../../native/build/Release/revloop_spawn.node',
    ) as NativeSpawn;
    if (typeof mod.spawn === 'function' && mod.usable()) native = mod;
  } catch {
    // Not built (no compiler at install): child_process it is.
  }
  return native;
}

export function spawnProcess(file: string, args: readonly string[], opts: SpawnOptions): SpawnedProcess {
  const mod = opts.via === 'node' ? null : nativeSpawn();
  if (!mod && opts.via === 'native')
    throw new Error('the native spawn module is not built or not usable here');
  if (!mod) {
    return nodeSpawn(file, args, {
      env: opts.env,
      stdio: [opts.stdin, 'pipe', 'pipe'],
      windowsHide: true,
    }) as SpawnedProcess;
  }
  return new NativeChild(mod, file, args, opts);
}

const errnoNames = new Map(Object.entries(constants.errno).map(([name, n]) => [n, name]));
const signalNames = new Map(
  Object.entries(constants.signals).map(([name, n]) => [n, name as NodeJS.Signals]),
);
const located = new Map<string, string>();

/** Where spawn would find `file`, looked up along the child's PATH as child_process does. */
function locate(file: string, pathVar: string | undefined): string | NodeJS.ErrnoException {
  // Bare names are remembered per PATH; a path is checked again each time (it is cheap).
  const key = file.includes('/') ? null : `${file}\0${pathVar ?? ''}`;
  const known = key === null ? undefined : located.get(key);
  if (known) return known;
  const found = findExecutable(file, process.cwd(), pathVar);
  if (!found.ok) return Object.assign(new Error(`spawn ${file} ${found.errno}`), { code: found.errno });
  if (key !== null) {
    if (located.size > 64) located.clear();
    located.set(key, found.path);
  }
  return found.path;
}

class NativeChild extends EventEmitter implements SpawnedProcess {
  readonly stdout: Readable;
  readonly stderr: Readable;
  readonly stdin: Writable | null = null;
  private pid = 0;
  /** Set by the exit callback, once the child is reaped. */
  private exit: { code: number; signal: number } | null = null;
  private openStreams = 2;
  private closed = false;

  constructor(mod: NativeSpawn, file: string, args: readonly string[], opts: SpawnOptions) {
    super();
    const path = locate(file, opts.env.PATH);
    let fds: [number, number, number, number] | null = null;
    let failure: NodeJS.ErrnoException | null = typeof path === 'string' ? null : path;
    if (typeof path === 'string') {
      const envp: string[] = [];
      for (const [k, v] of Object.entries(opts.env)) if (v !== undefined) envp.push(`${k}=${v}`);
      try {
        fds = mod.spawn(path, [file, ...args], envp, opts.stdin === 'pipe', (code, signal) => {
          this.exit = { code, signal };
          this.closeWhenDone();
        });
      } catch (err) {
        const code = errnoNames.get((err as { errno?: number }).errno ?? 0) ?? 'EIO';
        failure = Object.assign(new Error(`spawn ${file} ${code}`), { code, syscall: `spawn ${file}` });
      }
    }
    if (!fds) {
      // As child_process does: the error comes after the caller attached its listeners.
      this.stdout = Readable.from([]);
      this.stderr = Readable.from([]);
      process.nextTick(() => this.emit('error', failure));
      return;
    }
    const [pid, stdinFd, stdoutFd, stderrFd] = fds;
    this.pid = pid;
    this.stdout = new Socket({ fd: stdoutFd, readable: true, writable: false });
    this.stderr = new Socket({ fd: stderrFd, readable: true, writable: false });
    if (stdinFd >= 0) this.stdin = new Socket({ fd: stdinFd, readable: false, writable: true });
    const ended = () => {
      this.openStreams--;
      this.closeWhenDone();
    };
    this.stdout.on('close', ended);
    this.stderr.on('close', ended);
  }

  kill(signal: NodeJS.Signals = 'SIGTERM'): boolean {
    // Until the exit callback reaped it, the pid is still this child's (a zombie at worst).
    if (this.exit || this.pid === 0) return false;
    try {
      process.kill(this.pid, signal);
      return true;
    } catch {
      return false;
    }
  }

  /** `close` as child_process emits it: after the exit and the end of both outputs. */
  private closeWhenDone(): void {
    if (!this.exit || this.openStreams > 0 || this.closed) return;
    this.closed = true;
    const { code, signal } = this.exit;
    if (signal) this.emit('close', null, signalNames.get(signal) ?? null);
    else this.emit('close', code, null);
  }
}
