import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // dist/ is built once, here, before any file runs; no test file rebuilds it under the others.
    globalSetup: ['./test/global-build.ts'],
    // Limits, never verdicts: generous enough that a 2-core machine kept busy by other work passes
    // what an idle one does (tests are bounded by case counts; a hang still fails, only later).
    testTimeout: 180_000,
    hookTimeout: 300_000,
    // expect.poll's own default (1 s) is a verdict on the machine's speed; wait longer on a loaded one.
    expect: { poll: { timeout: 15_000 } },
    pool: 'forks',
    maxWorkers: 2,
    typecheck: { enabled: false },
    reporters: ['default', './test/plain-summary-reporter.ts'],
    // Stand-in agents keep their plans and logs in the temp dir, which a confined process does not
    // see: tests run role processes unconfined unless they say otherwise (test/security confines).
    env: { REVLOOP_CONFINE: process.env.REVLOOP_CONFINE ?? 'off' },
  },
});
