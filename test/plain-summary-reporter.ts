/**
 * Ends the run with one plain line, `Tests: N passed, N failed, N skipped`,
 * that any CI can read without parsing vitest's coloured summary.
 */
import type { Reporter, TestModule } from 'vitest/node';

export default class PlainSummaryReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<unknown>): void {
    const count = (state: 'passed' | 'failed' | 'skipped') =>
      modules.reduce((n, m) => n + [...m.children.allTests(state)].length, 0);
    // A module that failed to load has no tests but is a failure all the same.
    const broken = modules.filter(
      (m) => m.state() === 'failed' && [...m.children.allTests()].length === 0,
    ).length;
    const failed = count('failed') + broken + unhandledErrors.length;
    process.stdout.write(
      `\nTests: ${count('passed')} passed, ${failed} failed, ${count('skipped')} skipped\n`,
    );
  }
}
