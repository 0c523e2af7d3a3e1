/**
 * The confined runner: every process revloop starts for a role (a reviewer,
 * the refuter, the fixer, a check) runs under bubblewrap when it can. The
 * code a check runs is the change's, and an agent can be talked into running
 * anything, so what such a process sees is drawn here: the system read-only,
 * a private /tmp and HOME, its own PID namespace (no /proc of any other
 * process, and nothing it starts outlives it), no capabilities, and of the
 * machine's files only its own checkout (read-only for a reviewer and the
 * refuter) and the read-only directories the call names. The repository the
 * job runs in (its `.revloop/`: the signing key, the ledger), the pool and
 * every other checkout are covered by empty tmpfs. The network stays: agents
 * need their model API.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readdirSync, realpathSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, isAbsolute, join, sep } from 'node:path';
import { ConfinementUnavailableError, UsageError } from '../core/errors.js';
import { findExecutable } from './executable.js';

/** bubblewrap is looked for on the job's PATH (the trusted side's), as `bwrap`. */
const BWRAP = 'bwrap';

export type ConfineMode = 'auto' | 'require' | 'off';
const MODES: readonly ConfineMode[] = ['auto', 'require', 'off'];

/** What every confined process of one controller is kept from. */
export interface Confinement {
  bwrap: string;
  /** Directories no role process may see (the repository, the state dir, the ledger's dir, ...). */
  hidden: readonly string[];
}

/** One process's view: its checkout and what else it may read. */
export interface ConfinedView {
  checkout: string;
  /** A fixer's and a check's checkout is theirs to edit; a reviewer's and the refuter's is not. */
  writable: boolean;
  /** Read-only extras (the judge tree). */
  readOnlyDirs?: readonly string[] | undefined;
  /** Private copies of agent state directories, each bound at its original path: [copy, original]. */
  agentHomes?: readonly (readonly [string, string])[] | undefined;
}

/** `REVLOOP_CONFINE` (auto | require | off, default auto); `require` wins when the flag asks for it. */
export function confineMode(env: NodeJS.ProcessEnv, requireFlag = false): ConfineMode {
  const raw = env.REVLOOP_CONFINE?.trim() || 'auto';
  if (!MODES.includes(raw as ConfineMode))
    // A mistyped value is the user's input error (exit 2), not a missing runner; nothing runs either way.
    throw new UsageError(`REVLOOP_CONFINE=${JSON.stringify(raw)} refused: it must be auto, require or off`);
  return requireFlag ? 'require' : (raw as ConfineMode);
}

/** Why bwrap cannot confine a process here, or null when it can (one sandbox started and ended). */
export function probeBwrap(bwrap: string | null): string | null {
  if (!bwrap) return `${BWRAP} not found on PATH (install bubblewrap)`;
  const r = spawnSync(
    bwrap,
    ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp', '--unshare-pid'].concat([
      '--die-with-parent',
      '--cap-drop',
      'ALL',
      '--',
      '/bin/true',
    ]),
    { stdio: ['ignore', 'ignore', 'pipe'], timeout: 30_000, encoding: 'utf8' },
  );
  if (r.error) return `${bwrap} did not start: ${r.error.message}`;
  if (r.status !== 0) {
    const why = (r.stderr ?? '').trim().split('\n').pop() ?? '';
    return `${bwrap} cannot make a sandbox here${why ? `: ${why}` : ''} (exit ${r.status})`;
  }
  return null;
}

/**
 * The controller's confinement, probed once on first use: a Confinement, or
 * null when processes run unconfined (mode off, or auto without a working
 * bwrap, said once through `warn`). Mode `require` without one throws
 * ConfinementUnavailableError (exit 14) before any process starts.
 */
export function confiner(
  mode: ConfineMode,
  hidden: () => readonly string[],
  warn: (line: string) => void,
  path: string | undefined,
): () => Confinement | null {
  let resolved: { c: Confinement | null } | null = null;
  return () => {
    if (resolved) return resolved.c;
    if (mode === 'off') {
      resolved = { c: null };
      return null;
    }
    const found = findExecutable(BWRAP, '/', path);
    const bwrap = found.ok ? found.path : null;
    const why = probeBwrap(bwrap);
    if (why && mode === 'require')
      throw new ConfinementUnavailableError(
        `confinement required (REVLOOP_CONFINE=require or --require-confined) and unavailable: ${why}`,
      );
    if (why) {
      warn(
        `revloop: running reviewers, fixer and checks unconfined (${why}); the record will say confined: false\n`,
      );
      resolved = { c: null };
      return null;
    }
    resolved = { c: { bwrap: bwrap as string, hidden: hidden() } };
    return resolved.c;
  };
}

/** Variables naming an agent CLI's own state directory (its config and login). */
const AGENT_HOMES = ['CODEX_HOME', 'CLAUDE_CONFIG_DIR'];

/**
 * Private copies of the agent state directories a process was given
 * (`CODEX_HOME`, `CLAUDE_CONFIG_DIR`, when its environment names them): their
 * top-level files (config, login) only, not session logs. The agent writes its
 * sessions there; the copy goes with the call, so nothing it writes reaches the
 * user's own.
 */
export function agentHomeCopies(env: NodeJS.ProcessEnv): { homes: [string, string][]; dispose(): void } {
  const homes: [string, string][] = [];
  for (const name of AGENT_HOMES) {
    const d = env[name];
    if (!d || !isAbsolute(d) || !isDir(d)) continue;
    const copy = mkdtempSync(join(tmpdir(), 'revloop-agent-home-'));
    for (const e of readdirSync(d, { withFileTypes: true }))
      if (e.isFile()) copyFileSync(join(d, e.name), join(copy, e.name));
    homes.push([copy, real(d)]);
  }
  const dispose = () => {
    for (const [copy] of homes) rmSync(copy, { recursive: true, force: true });
  };
  return { homes, dispose };
}

const inside = (path: string, dir: string): boolean =>
  path === dir || path.startsWith(dir.endsWith(sep) ? dir : dir + sep);

function real(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}

function isDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/**
 * Where an executable lives, to be shown read-only when it sits under a
 * hidden directory (an agent CLI installed under HOME): the `node_modules`
 * tree it belongs to, else its own directory.
 */
function executableRoot(exe: string): string {
  const parts = exe.split(sep);
  const nm = parts.indexOf('node_modules');
  return nm > 0 ? parts.slice(0, nm + 1).join(sep) : dirname(exe);
}

/**
 * The bwrap argv that runs `argv` (its first element an absolute path) in
 * `view`. Mounts are listed parents first, so each one is laid over the ones
 * before: the system read-only, then tmpfs over every hidden directory, the
 * checkout's siblings (the other checkouts of the pool), /tmp and HOME, then
 * what the process may see again: its executable, the read-only extras, its
 * checkout last.
 */
export function confinedArgv(
  c: Confinement,
  view: ConfinedView,
  argv: readonly [string, ...string[]],
  env: NodeJS.ProcessEnv,
): string[] {
  const [exe, ...args] = argv;
  const checkout = real(view.checkout);
  const home = env.HOME && isAbsolute(env.HOME) && env.HOME !== '/' ? env.HOME : null;
  // The process's own scratch space: empty, private, writable.
  const scratch = ['/tmp', '/var/tmp', ...(home ? [real(home)] : [])];
  const candidates = [...c.hidden, dirname(checkout), ...scratch]
    .filter((d) => isAbsolute(d) && isDir(d))
    .map(real)
    .filter((d) => d !== '/')
    .sort((a, b) => a.length - b.length);
  // A directory inside one already covered is covered with it.
  const covered: string[] = [];
  for (const d of candidates) if (!covered.some((o) => inside(d, o))) covered.push(d);
  const out = [
    '--ro-bind',
    '/',
    '/',
    '--dev',
    '/dev',
    '--proc',
    '/proc',
    '--unshare-pid',
    '--unshare-ipc',
    '--die-with-parent',
    '--cap-drop',
    'ALL',
  ];
  for (const d of covered) out.push('--tmpfs', d);
  const realExe = real(exe);
  const exeRoot = executableRoot(realExe);
  if (covered.some((d) => inside(realExe, d)) && !inside(realExe, checkout))
    out.push('--ro-bind', exeRoot, exeRoot);
  for (const d of view.readOnlyDirs ?? []) if (isDir(d)) out.push('--ro-bind', real(d), real(d));
  // An agent CLI's own state directory (its config and login), as a private copy (agentHomes).
  for (const [copy, at] of view.agentHomes ?? []) out.push('--bind', copy, at);
  out.push(view.writable ? '--bind' : '--ro-bind', checkout, checkout);
  // What covers the hidden directories is read-only too, once the mount points in it are made.
  for (const d of covered) if (!scratch.includes(d)) out.push('--remount-ro', d);
  // The private /tmp is the temp dir, whatever TMPDIR said outside.
  out.push('--setenv', 'TMPDIR', '/tmp', '--chdir', checkout, '--', realExe, ...args);
  return out;
}

/** The hidden directories of a controller: the repository, its state dir, and where its ledger file lives. */
export function hiddenFor(repoRoot: string, extra: readonly (string | null | undefined)[] = []): string[] {
  const dirs = [repoRoot, join(repoRoot, '.revloop'), ...extra.filter((d): d is string => !!d)];
  return [...new Set(dirs.filter((d) => isAbsolute(d)))];
}
