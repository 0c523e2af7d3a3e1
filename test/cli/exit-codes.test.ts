/**
 * Issue 16, point 7: error codes are one `as const` map and each has an exit
 * decision (`Record<ErrorCode, Exit>`). The exit codes users see are the ones
 * the README's table promised before the map existed.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Exit, exitCodeFor } from '../../src/cli/exit-codes.js';
import { ErrorCode, RevloopError, UsageError } from '../../src/core/errors.js';
import { IllegalTransitionError } from '../../src/core/run-state.js';
import * as loopErrors from '../../src/loop/errors.js';
import { findRunOrThrow } from '../../src/loop/operations.js';
import * as storeErrors from '../../src/store/errors.js';
import { MemoryStore } from '../../src/store/memory.js';

/** What each code exited with before the map: the storage faults 5, nothing to review 6, a failed write 10, the rest 2. */
const BEFORE: Partial<Record<ErrorCode, number>> = {
  store_locked: 5,
  store_readonly: 5,
  store_full: 5,
  store_corrupt: 5,
  store_unavailable: 5,
  // New with issue 16: a stored stage result or reply that fails its schema is a ledger fault too.
  stored_row_invalid: 5,
  fenced_out: 5,
  nothing_to_review: 6,
  write_failed: 10,
  // New with the trust boundary: each refusal has its own code.
  untrusted_input: 12,
  // A fix bundle in the ledger that does not yield its commit is a refused trust input too.
  fix_bundle_refused: 12,
  confinement_unavailable: 14,
  // New with the webhook service: serve refuses any ledger but PostgreSQL.
  service_needs_postgres: 15,
};

describe('error codes and their exits (issue 16, point 7)', () => {
  it.each(Object.values(ErrorCode).filter((c) => c !== 'illegal_transition'))(
    '%s exits as it did before the map',
    (code) => {
      expect(exitCodeFor(new RevloopError(code, 'x'))).toBe(BEFORE[code] ?? Exit.usage);
    },
  );

  it('an illegal transition is a bug (70), as the plain Error it was; anything not ours is too', () => {
    expect(exitCodeFor(new IllegalTransitionError('queued', 'completed'))).toBe(Exit.internal);
    expect(exitCodeFor(new TypeError('x'))).toBe(Exit.internal);
  });

  it('names each code by itself, so the map cannot hold two spellings of one code', () => {
    for (const [k, v] of Object.entries(ErrorCode)) expect(v).toBe(k);
  });

  it('a code outside the map does not compile', () => {
    // @ts-expect-error: 'deferred' is no error code (AdmissionDeferredError is gone)
    const e = new RevloopError('deferred', 'x');
    expect(e).toBeInstanceOf(RevloopError);
  });

  it('every exit code is in the README table', () => {
    const readme = readFileSync(join(import.meta.dirname, '..', '..', 'README.md'), 'utf8');
    const table = readme.slice(readme.indexOf('## Exit codes'));
    for (const code of Object.values(Exit)) expect(table).toMatch(new RegExp(`^\\| ${code} \\|`, 'm'));
  });

  it('keeps one UnknownRunError, and no dead error classes', async () => {
    expect(Object.keys(loopErrors)).not.toContain('UnknownRunError');
    expect(Object.keys(loopErrors)).not.toContain('AdmissionDeferredError');
    const err = await findRunOrThrow({ store: new MemoryStore() }, 'r3k').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(storeErrors.UnknownRunError);
    expect(err).toMatchObject({ code: 'unknown_run', message: 'no run matches "r3k" in the ledger' });
    expect(new UsageError('x').code).toBe('usage');
  });
});
