/**
 * Vitest global set-up: dist/ is fresh before any test file runs (test/helpers/build.ts
 * says why), and the suite's temporary files live under one directory of its own, set as
 * TMPDIR before the test processes start (they and the CLIs they run inherit it), which
 * the teardown removes: a run of the suite used to leave about a hundred directories in
 * the system's temp dir (eval configs, key pairs, runner repositories, demo repositories).
 * XDG_CACHE_HOME points there too: the pool's checkouts live in the user's cache
 * (src/loop/checkout/pool/location.ts), and the suite's must not pile up in the real one.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildIfStale } from './helpers/build.js';

export default function setup(): () => void {
  buildIfStale();
  const root = mkdtempSync(join(tmpdir(), 'revloop-suite-'));
  const before = { TMPDIR: process.env.TMPDIR, XDG_CACHE_HOME: process.env.XDG_CACHE_HOME };
  process.env.TMPDIR = root;
  process.env.XDG_CACHE_HOME = join(root, 'cache');
  return () => {
    for (const [k, v] of Object.entries(before)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    rmSync(root, { recursive: true, force: true });
  };
}
