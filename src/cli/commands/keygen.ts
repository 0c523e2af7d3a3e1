/** `revloop keygen`: writes an Ed25519 key pair (private key mode 0600, never printed). */
import { resolve } from 'node:path';
import { KeyExistsError } from '../../record/errors.js';
import { DEFAULT_KEY_PREFIX, generateKeyPair } from '../../record/keys.js';
import { type Command, printJson } from '../io.js';

interface Opts {
  repo?: string;
  out?: string;
  force?: boolean;
  json?: boolean;
}

const keygen: Command<Opts> = async (_args, opts, io) => {
  const repo = resolve(io.cwd, opts.repo ?? '.');
  const prefix = opts.out ? resolve(io.cwd, opts.out) : resolve(repo, DEFAULT_KEY_PREFIX);
  try {
    const k = generateKeyPair(prefix, { force: Boolean(opts.force) });
    if (opts.json) printJson(io, k);
    else
      io.stdout(
        `revloop keygen: wrote ${k.publicPath} and ${k.privatePath} (private, mode 0600)\nkey id ${k.keyId}\n`,
      );
    return 0;
  } catch (err) {
    if (!(err instanceof KeyExistsError)) throw err;
    io.stderr(`revloop keygen: ${err.message}\n`);
    return 2;
  }
};

export default keygen;
