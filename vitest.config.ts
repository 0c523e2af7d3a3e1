import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // expect.poll's own default (1 s) is a verdict on the machine's speed; wait longer on a loaded one.
    expect: { poll: { timeout: 15_000 } },
    pool: 'forks',
    maxWorkers: 2,
    typecheck: { enabled: false },
    reporters: ['default', './test/plain-summary-reporter.ts'],
  },
});
