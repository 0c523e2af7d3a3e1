/**
 * Vitest global set-up: dist/ is fresh before any test file runs (test/helpers/build.ts
 * says why), and the suite's temporary files live under one directory of its own, set as
 * TMPDIR before the test processes start (they and the CLIs they run inherit it), which
 * the teardown removes: a run of the suite used to leave about a hundred directories in
 * the system's temp dir (eval configs, key pairs, runner repositories, demo repositories).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildIfStale } from './helpers/build.js';

export default function setup(): () => void {
  buildIfStale();
  const root = mkdtempSync(join(tmpdir(), 'revloop-suite-'));
  const before = process.env.TMPDIR;
  process.env.TMPDIR = root;
  return () => {
    if (before === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = before;
    rmSync(root, { recursive: true, force: true });
  };
}
