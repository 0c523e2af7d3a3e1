/**
 * Named errors of the record layer. `verify` never throws for a bad record:
 * it returns a VerifyResult; these are for key handling and writing records.
 */
import { RevloopError } from '../core/errors.js';

/** `keygen` would overwrite a key without --force (exit 2). */
export class KeyExistsError extends RevloopError {
  constructor(readonly path: string) {
    super('key_exists', `${path} already exists (use --force to overwrite)`, { path });
  }
}

/** A key file is missing or is not an Ed25519 key of the expected kind. */
export class KeyFileError extends RevloopError {
  constructor(
    readonly path: string,
    detail: string,
  ) {
    super('bad_key_file', `cannot use key ${path}: ${detail}`, { path, detail });
  }
}
