import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { publishOptions } from '../../src/cli/commands/publish.js';
import { INCOMPLETE_CONCLUSIONS, REVIEW_EVENTS, STOP_RULES } from '../../src/core/choices.js';
import { UsageError } from '../../src/core/errors.js';
import { PRESET_NAMES, resolveParams } from '../../src/sim/params.js';
import { ensureBuilt } from '../loop/helpers.js';

const CLI = new URL('../../dist/cli/main.js', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'revloop-usage-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const run = (...args: string[]) =>
  spawnSync(process.execPath, [CLI, ...args], { cwd: dir, encoding: 'utf8' });

describe('bad input: one line naming what was wrong, exit 2, nothing on stdout', () => {
  it.each([
    [['bogus'], /unknown command 'bogus'/],
    [['settle', 'abc', '--decision', 'upheld'], /--by/],
    [['export', 'r1', '--format', 'pdf'], /--format/],
    [['sim', '--trials', '-5'], /--trials/],
    [['review', '--config-from', 'elsewhere'], /--config-from/],
    [['sim', '--preset', 'sunny'], /--preset <p>' argument 'sunny' is invalid/],
    [['sim', '--stop-rule', 'vibes'], /--stop-rule <r>' argument 'vibes' is invalid/],
    [['publish', 'r1', '--to', 'github', '--event', 'APPROVE'], /--event <e>' argument 'APPROVE'/],
    [['review', '--event', 'APPROVE'], /--event <e>' argument 'APPROVE'/],
    [['publish', 'r1', '--to', 'github', '--incomplete', 'success'], /--incomplete <c>' argument 'success'/],
    [['status'], /not a git repository/],
  ])(
    'revloop %s',
    (args, pattern) => {
      ensureBuilt();
      const r = run(...args);
      expect(r.status).toBe(2);
      expect(r.stdout).toBe('');
      const lines = r.stderr.trimEnd().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/^revloop: /);
      expect(lines[0]).toMatch(pattern);
    },
    600_000,
  );
});

// Issue 16, point 10: a flag with fixed choices reads them from the one list that owns them.
describe('fixed choices come from one list each', () => {
  it.each([
    ['sim', '--preset <p>', PRESET_NAMES],
    ['sim', '--stop-rule <r>', STOP_RULES],
    ['publish', '--event <e>', REVIEW_EVENTS],
    ['review', '--event <e>', REVIEW_EVENTS],
    ['publish', '--incomplete <c>', INCOMPLETE_CONCLUSIONS],
  ])(
    '%s --help lists %s from its list',
    (command, flag, list) => {
      ensureBuilt();
      // commander wraps help at spaces: collapsed, each flag's entry reads as one line.
      const help = run(command, '--help').stdout.replace(/\s+/g, ' ');
      const choices = `(choices: ${list.map((c) => `"${c}"`).join(', ')})`;
      expect(help).toContain(flag);
      // The flag's own entry runs to the next option.
      const after = help.slice(help.indexOf(flag) + flag.length);
      expect(after.slice(0, after.search(/ --[a-z]/))).toContain(choices);
    },
    600_000,
  );

  it('a programmatic caller is refused in one line from the same list', () => {
    expect(() => publishOptions({ event: 'APPROVE' })).toThrow(
      new UsageError(`--event must be ${REVIEW_EVENTS.join(' or ')}, not "APPROVE"`),
    );
    expect(() => publishOptions({ incomplete: 'success' })).toThrow(
      new UsageError(`--incomplete must be ${INCOMPLETE_CONCLUSIONS.join(' or ')}, not "success"`),
    );
    expect(() => resolveParams('sunny')).toThrow(/^--preset: expected one of healthy, hostile/);
    expect(() => resolveParams(null, { stopRule: 'vibes' })).toThrow(
      /^--stop-rule: expected one of evidence, count/,
    );
    expect(publishOptions({ event: 'REQUEST_CHANGES', incomplete: 'failure' })).toMatchObject({
      event: 'REQUEST_CHANGES',
      incomplete: 'failure',
    });
  });
});
