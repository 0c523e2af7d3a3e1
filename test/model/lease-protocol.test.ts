/**
 * The admission and lease protocol, model-checked (issue 20 point 1):
 * models/lease-protocol.pml run through Spin by scripts/model-check.mjs, at
 * 3 processes x 2 admission keys with one fault (kill -9, SIGSTOP, SIGTERM, a
 * lease expiry, an output not written) at any step. The real model must hold
 * exhaustively, and each mutant must break, so the properties are not vacuous.
 * `npm run model-check` runs the same checks; docs/architecture.md maps the
 * model's transitions to the SQL.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const SCRIPT = join(import.meta.dirname, '..', '..', 'scripts', 'model-check.mjs');
const missing = ['spin', 'gcc'].find((t) => {
  const r = spawnSync(t, [t === 'spin' ? '-V' : '--version'], { stdio: 'ignore' });
  return r.error !== undefined || r.status !== 0;
});

interface Result {
  name: string;
  verdict: 'pass' | 'fail';
  ok: boolean;
  error: string | null;
  states: number;
  memoryMb: number;
  exhaustive: boolean;
}

const check = (...args: string[]) =>
  spawnSync(process.execPath, [SCRIPT, ...args], { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 });

// Spin and gcc are Debian packages (.ci/run installs them); without them the model cannot run here.
describe.skipIf(missing !== undefined)(
  `the lease protocol model${missing ? ` (skipped: ${missing} is not installed)` : ''}`,
  () => {
    it('holds exhaustively at 3 processes x 2 keys, and every mutant is caught', () => {
      const r = check('--faults', '1', '--admits', '2', '--json');
      expect(r.stderr).toBe('');
      const { results } = JSON.parse(r.stdout) as { results: Result[] };
      const by = Object.fromEntries(results.map((x) => [x.name, x]));
      // Safety and liveness hold over the whole state space.
      expect(by.safety).toMatchObject({ verdict: 'pass', exhaustive: true });
      expect(by.liveness).toMatchObject({ verdict: 'pass', exhaustive: true });
      expect(by.safety!.states).toBeGreaterThan(100_000);
      // Each mutant breaks the property it should.
      // A write with a stale token (or to an ended run) is applied.
      expect(by['mutant: no fencing check']).toMatchObject({
        verdict: 'fail',
        error: expect.stringMatching(/^assertion violated \((tok\[|!\(\(st\[)/),
      });
      // Two held runs of one admission key.
      expect(by['mutant: no unique admission key']).toMatchObject({
        verdict: 'fail',
        error: expect.stringMatching(/^assertion violated .*key\[0\]==0/),
      });
      // A takeover commits between the token check and the write.
      expect(by['mutant: token read without FOR UPDATE']).toMatchObject({
        verdict: 'fail',
        error: expect.stringMatching(/^assertion violated \(tok\[/),
      });
      expect(by['mutant: expired leases never taken over']).toMatchObject({
        verdict: 'fail',
        error: expect.stringMatching(/^acceptance cycle/),
      });
      expect(r.status).toBe(0);
    }, 1_800_000);

    it('a bound that does not parse is a one-line error, exit 2', () => {
      const r = check('--faults', 'many');
      expect(r.status).toBe(2);
      expect(r.stderr.trim()).toBe('model-check: --faults needs a whole number, got many');
      expect(check('--admits', '4').stderr.trim()).toMatch(/^model-check: --admits must be 1 to 3/);
    });
  },
);
