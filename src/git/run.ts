/**
 * The one place revloop starts git: argument arrays, never a shell, and an
 * environment that cannot point git at another repository behind our back.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { GitError, NotARepositoryError } from './errors.js';

/** Options of {@link createGit}. */
export interface GitOptions {
  /** The git executable; default `git` from PATH. */
  gitPath?: string;
  /**
   * Extra environment for every git process, applied last (undefined removes
   * a variable). Tests use it to point GIT_CONFIG_GLOBAL at a hostile config.
   */
  env?: Record<string, string | undefined>;
  /** Author and committer of the commits revloop makes; default revloop <revloop@localhost>. */
  identity?: { name: string; email: string };
  /**
   * The most bytes of a diff's text a read keeps (default: the longest string
   * the runtime can hold); tests lower it to reach the limit with a small diff.
   */
  maxDiffTextBytes?: number;
}

export interface RunResult {
  code: number | null;
  stdout: Buffer;
  stderr: string;
}

export interface RunOptions {
  /** Bytes written to git's stdin, which is then closed. */
  input?: string | Buffer;
  /** Variables set on top of the runner's environment for this call. */
  env?: Record<string, string>;
}

// Variables that redirect git to another repository, index or worktree. A git
// hook (pre-push, pre-commit) sets several of them, and `revloop verify` runs
// from a hook: inherited, they would override `-C`.
const REPO_LOCATING = [
  'GIT_DIR',
  'GIT_WORK_TREE',
  'GIT_INDEX_FILE',
  'GIT_OBJECT_DIRECTORY',
  'GIT_ALTERNATE_OBJECT_DIRECTORIES',
  'GIT_COMMON_DIR',
  'GIT_NAMESPACE',
  'GIT_PREFIX',
  'GIT_CEILING_DIRECTORIES',
  'GIT_DISCOVERY_ACROSS_FILESYSTEM',
  // Changes the default context of every patch.
  'GIT_DIFF_OPTS',
  // Names a tree to read gitattributes from, over the empty tree the diffs pin (common-dir.ts).
  'GIT_ATTR_SOURCE',
  'GIT_EXTERNAL_DIFF',
] as const;

const STDERR_CAP = 64 * 1024;

/** Builds the environment every git process gets. */
export function gitEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const k of REPO_LOCATING) delete env[k];
  // The user's global and system config stay in force (safe.directory,
  // credentials, LFS): every option that changes an output we hash or parse
  // is pinned by a flag or `-c` at the call site instead.
  Object.assign(env, {
    LC_ALL: 'C',
    LANGUAGE: 'C',
    GIT_TERMINAL_PROMPT: '0',
    GIT_PAGER: 'cat',
    GIT_EDITOR: 'true',
    // A commit id names fixed content only when `refs/replace/*` is ignored: the freeze check
    // trusts a range's diff digest read once in a process (cost follows the change), and a replace ref
    // created mid-run must not change what the id means to revloop.
    GIT_NO_REPLACE_OBJECTS: '1',
  });
  for (const [k, v] of Object.entries(extra)) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return env;
}

export interface GitRunner {
  /** Runs `git -C dir ...args`; resolves whatever the exit code. */
  exec(dir: string, args: readonly string[], opts?: RunOptions): Promise<RunResult>;
  /** Like exec, but throws on a nonzero exit; resolves with stdout. */
  ok(dir: string, args: readonly string[], opts?: RunOptions): Promise<Buffer>;
  /**
   * Runs git and hands each stdout chunk to `onChunk` as it arrives; when
   * `onChunk` returns false the process is killed and `stopped` is true.
   */
  stream(
    dir: string,
    args: readonly string[],
    onChunk: (chunk: Buffer) => boolean | undefined,
  ): Promise<{ code: number | null; stderr: string; stopped: boolean }>;
  /** The error a failed run maps to. */
  failure(dir: string, args: readonly string[], res: { code: number | null; stderr: string }): Error;
  /** Starts a long-lived git (`cat-file --batch`) with all three pipes; the caller owns its lifetime. */
  spawnPiped(dir: string, args: readonly string[]): ChildProcessWithoutNullStreams;
}

/** The subcommand name in an argument list, for messages. */
function subcommand(args: readonly string[]): string {
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string;
    if (a === '-c' || a === '-C') i++;
    else if (!a.startsWith('-')) return a;
  }
  return 'git';
}

export function createRunner(opts: GitOptions = {}): GitRunner {
  const gitPath = opts.gitPath ?? 'git';
  const env = gitEnv(opts.env);

  const failure: GitRunner['failure'] = (dir, args, res) => {
    if (/not a git repository|cannot change to/i.test(res.stderr)) return new NotARepositoryError(dir);
    return new GitError(subcommand(args), args, res.code, res.stderr);
  };

  const stream: GitRunner['stream'] = (dir, args, onChunk) =>
    new Promise((resolve, reject) => {
      const child = spawn(gitPath, ['-C', dir, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
      let stderr = '';
      let stopped = false;
      child.stderr.setEncoding('utf8');
      child.stderr.on('data', (s: string) => {
        if (stderr.length < STDERR_CAP) stderr += s;
      });
      child.stdout.on('data', (chunk: Buffer) => {
        if (stopped) return;
        if (onChunk(chunk) === false) {
          stopped = true;
          child.stdout.destroy();
          child.kill('SIGKILL');
        }
      });
      child.on('error', (err) => reject(new GitError(subcommand(args), args, null, err.message)));
      child.on('close', (code) => resolve({ code, stderr, stopped }));
    });

  const exec: GitRunner['exec'] = (dir, args, runOpts = {}) =>
    new Promise((resolve, reject) => {
      const input = runOpts.input;
      const child = spawn(gitPath, ['-C', dir, ...args], {
        env: runOpts.env ? { ...env, ...runOpts.env } : env,
        // stdin is always a pipe, ended at once when there is no input: git reads end of file.
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      const out: Buffer[] = [];
      let stderr = '';
      child.stdout.on('data', (c: Buffer) => out.push(c));
      child.stderr.setEncoding('utf8');
      child.stderr.on('data', (s: string) => {
        if (stderr.length < STDERR_CAP) stderr += s;
      });
      child.on('error', (err) => reject(new GitError(subcommand(args), args, null, err.message)));
      child.on('close', (code) => resolve({ code, stdout: Buffer.concat(out), stderr }));
      // git may exit before reading all input (e.g. a bad ref); the close event reports it.
      child.stdin.on('error', () => {});
      child.stdin.end(input);
    });

  const ok: GitRunner['ok'] = async (dir, args, runOpts) => {
    const res = await exec(dir, args, runOpts);
    if (res.code !== 0) throw failure(dir, args, res);
    return res.stdout;
  };

  const spawnPiped: GitRunner['spawnPiped'] = (dir, args) =>
    spawn(gitPath, ['-C', dir, ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });

  return { exec, ok, stream, failure, spawnPiped };
}
