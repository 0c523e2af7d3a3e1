/** `revloop verify RECORD`: prints the result of src/record/verify.ts and maps it to an exit code. */
import { resolve } from 'node:path';
import { createGit } from '../../git/index.js';
import { VERIFY_EXIT, verifyRecordFile } from '../../record/verify.js';
import { type Command, printJson } from '../io.js';

interface Opts {
  key?: string[];
  repo?: string;
  /** Verify this run's record, written here from the ledger first. */
  run?: string;
  store?: string;
  keysFrom?: string;
  target?: string;
  allowFindings?: boolean;
  requireConfined?: boolean;
  /** commander's `--no-reuse`: false when given. */
  reuse?: boolean;
  json?: boolean;
}

const verify: Command<Opts> = async (args, opts, io) => {
  const given = args[0];
  let record: string;
  if (given !== undefined && opts.run === undefined) record = resolve(io.cwd, given);
  else if (given === undefined && opts.run !== undefined) {
    // Loaded only here: a plain `verify RECORD` never opens the ledger.
    const { recordOfRun } = await import('../run-record.js');
    const found = await recordOfRun(io, opts, opts.run);
    if ('notCompleted' in found) {
      io.stderr(`revloop verify: refused: not_completed: ${found.notCompleted}\n`);
      return VERIFY_EXIT.not_completed;
    }
    record = found.path;
  } else {
    io.stderr('revloop verify: usage: revloop verify RECORD | --run RUN [--key PUB...] [--repo DIR]\n');
    return 2;
  }
  const res = await verifyRecordFile(record, {
    git: createGit(),
    repo: resolve(io.cwd, opts.repo ?? '.'),
    keys: opts.key?.map((k) => resolve(io.cwd, k)),
    keysFrom: opts.keysFrom,
    target: opts.target,
    allowFindings: Boolean(opts.allowFindings),
    requireConfined: Boolean(opts.requireConfined),
    noReuse: opts.reuse === false,
  });
  if (opts.json) {
    const { ok, code, reason, runId, head, outcome, keyId } = res;
    printJson(io, { ok, code, reason, runId, head, outcome, keyId });
  } else if (res.ok) {
    io.stdout(`revloop verify: ok: ${res.reason}, signed by ${res.keyId?.slice(0, 16)}\n`);
  } else {
    io.stderr(`revloop verify: refused: ${res.code}: ${res.reason}\n`);
  }
  return VERIFY_EXIT[res.code];
};

export default verify;

/**
 * Parses verify's argv exactly as main.ts's commander spec does, for the fast
 * path that skips loading commander; null when unsure (help, unknown or
 * incomplete flags, not exactly one record), and commander handles it.
 */
export function parseVerifyArgv(argv: string[]): { args: string[]; opts: Opts } | null {
  const args: string[] = [];
  const opts: Opts = {};
  const valued = { '--repo': 'repo', '--keys-from': 'keysFrom', '--target': 'target' } as const;
  for (let i = 0; i < argv.length; i++) {
    const tok = argv[i] as string;
    const eq = tok.indexOf('=');
    const [name, inline] =
      tok.startsWith('--') && eq > 0 ? [tok.slice(0, eq), tok.slice(eq + 1)] : [tok, undefined];
    if (name === '--no-reuse') {
      if (inline !== undefined) return null;
      opts.reuse = false;
    } else if (name === '--allow-findings' || name === '--json' || name === '--require-confined') {
      if (inline !== undefined) return null;
      opts[name === '--json' ? 'json' : name === '--allow-findings' ? 'allowFindings' : 'requireConfined'] =
        true;
    } else if (name === '--repo' || name === '--keys-from' || name === '--target') {
      const v = inline ?? argv[++i];
      if (v === undefined || (inline === undefined && v.startsWith('-'))) return null;
      opts[valued[name]] = v;
    } else if (name === '--key') {
      // Variadic, as in commander: following non-option words are keys too.
      const keys = opts.key ?? [];
      const first = inline ?? argv[++i];
      if (first === undefined || (inline === undefined && first.startsWith('-'))) return null;
      keys.push(first);
      while (i + 1 < argv.length && !(argv[i + 1] as string).startsWith('-')) keys.push(argv[++i] as string);
      opts.key = keys;
    } else if (tok.startsWith('-')) return null;
    else args.push(tok);
  }
  return args.length === 1 ? { args, opts } : null;
}
