/**
 * Ed25519 keys for records: PEM files (PKCS#8 private, SPKI public). The key
 * id is the sha256 (hex) of the public key's SPKI DER, so it is the same
 * whichever file or encoding the key came from.
 */
import {
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type KeyObject,
  sign,
  verify,
} from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { writeFileAtomic } from '../io/atomic-file.js';
import { sha256 } from '../io/hash.js';
import type { Signer, Verifier } from '../ports/signer.js';
import { KeyExistsError, KeyFileError } from './errors.js';

/** Default key prefix under the repository root: PREFIX.key and PREFIX.pub. */
export const DEFAULT_KEY_PREFIX = '.revloop/keys/signing';

export interface KeyPairFiles {
  privatePath: string;
  publicPath: string;
  keyId: string;
}

/** sha256 hex of the SPKI DER of a public (or private: its public half) key. */
export function keyIdOf(key: KeyObject): string {
  const pub = key.type === 'private' ? createPublicKey(key) : key;
  return sha256(pub.export({ type: 'spki', format: 'der' }));
}

/**
 * Writes PREFIX.key (mode 0600) and PREFIX.pub. Refuses to overwrite either
 * without `force` (KeyExistsError). The private key is never returned or printed.
 */
export function generateKeyPair(prefix: string, opts: { force?: boolean } = {}): KeyPairFiles {
  const privatePath = `${prefix}.key`;
  const publicPath = `${prefix}.pub`;
  if (!opts.force) for (const p of [privatePath, publicPath]) if (existsSync(p)) throw new KeyExistsError(p);
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  writeFileAtomic(privatePath, privateKey.export({ type: 'pkcs8', format: 'pem' }) as string, {
    mode: 0o600,
  });
  writeFileAtomic(publicPath, publicKey.export({ type: 'spki', format: 'pem' }) as string);
  return { privatePath, publicPath, keyId: keyIdOf(publicKey) };
}

function readKeyFile(path: string): Buffer {
  try {
    return readFileSync(path);
  } catch (err) {
    throw new KeyFileError(path, (err as NodeJS.ErrnoException).code ?? String(err));
  }
}

/** A Signer over an Ed25519 private key in PEM (PKCS#8). */
export function loadSigner(path: string): Signer {
  let key: KeyObject;
  try {
    key = createPrivateKey(readKeyFile(path));
  } catch (err) {
    if (err instanceof KeyFileError) throw err;
    throw new KeyFileError(path, 'not a PEM private key');
  }
  if (key.asymmetricKeyType !== 'ed25519') throw new KeyFileError(path, 'not an Ed25519 key');
  return { keyId: keyIdOf(key), sign: (data) => sign(null, data, key) };
}

/** A Verifier over a PEM public key given as text or bytes; `source` names it in errors. */
export function verifierFromPem(pem: string | Uint8Array, source: string): Verifier {
  let key: KeyObject;
  try {
    key = createPublicKey(typeof pem === 'string' ? pem : Buffer.from(pem));
  } catch {
    throw new KeyFileError(source, 'not a PEM public key');
  }
  if (key.asymmetricKeyType !== 'ed25519') throw new KeyFileError(source, 'not an Ed25519 key');
  return {
    keyId: keyIdOf(key),
    verify: (data, signature) => {
      try {
        return verify(null, data, key, signature);
      } catch {
        return false;
      }
    },
  };
}

/** Verifiers for PEM public key files (a private key file also works: its public half is used). */
export function loadVerifiers(paths: string[]): Verifier[] {
  return paths.map((p) => verifierFromPem(readKeyFile(p), p));
}
