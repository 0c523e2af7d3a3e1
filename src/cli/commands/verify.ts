/** `revloop verify RECORD`: prints the result of src/record/verify.ts and maps it to an exit code. */
import { resolve } from 'node:path';
import { createGit } from '../../git/index.js';
import { VERIFY_EXIT, verifyRecordFile } from '../../record/verify.js';
import { type Command, printJson } from '../io.js';

interface Opts {
  key?: string[];
  repo?: string;
  keysFrom?: string;
  allowFindings?: boolean;
  json?: boolean;
}

const verify: Command<Opts> = async (args, opts, io) => {
  const record = args[0];
  if (!record) {
    io.stderr('revloop verify: usage: revloop verify RECORD [--key PUB...] [--repo DIR]\n');
    return 2;
  }
  const res = await verifyRecordFile(resolve(io.cwd, record), {
    git: createGit(),
    repo: resolve(io.cwd, opts.repo ?? '.'),
    keys: opts.key?.map((k) => resolve(io.cwd, k)),
    keysFrom: opts.keysFrom,
    allowFindings: Boolean(opts.allowFindings),
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
