import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
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
