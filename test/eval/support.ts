/** Configs for eval tests: real subprocess reviewers from test/fixtures/eval, criteria beside them. */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const CORPUS = join(ROOT, 'corpus');
export const FIXTURES = join(ROOT, 'test/fixtures/eval');

/** A config with one `command` reviewer running `script` (a file in test/fixtures/eval). */
export function reviewerConfig(name: string, script: string, extra = ''): string {
  const dir = mkdtempSync(join(tmpdir(), 'revloop-eval-cfg-'));
  writeFileSync(join(dir, 'criteria.md'), '# criteria\n\n1. Do not bring back a fixed bug.\n');
  const file = join(dir, `${name}.yaml`);
  writeFileSync(
    file,
    `criteria: criteria.md\nreviewers:\n  - name: ${name}\n    command: [node, ${join(FIXTURES, script)}]\n    env: [EVAL_CORPUS, EVAL_LINE]\nbudgets: { rounds: 1, wallSeconds: 900, costUsd: 1 }\ntimeouts: { callSeconds: 300 }\n${extra}`,
  );
  return file;
}

/** The built CLI, with only PATH and HOME from this environment (plus `env`). */
export const revloop = (args: string[], env: Record<string, string> = {}) =>
  spawnSync(process.execPath, [join(ROOT, 'dist/cli/main.js'), ...args], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
  });
