/**
 * A state dir shared by users (CI runners under different accounts): a prompt
 * another user stored is still stored. Setting its times (gc's retention ages
 * a prompt from its last use) is refused to a user who does not own it
 * (EPERM), and that must not read as "not stored": the save would then write
 * into a directory it may not write, and the call would fail.
 * Runs a real save as `nobody` (uid 65534); needs root to start it.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, ROOT } from '../helpers/build.js';

beforeAll(() => ensureBuilt(), 600_000);
const made: string[] = [];
afterAll(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});

const NOBODY = 65534;
const MODULE = join(ROOT, 'dist/io/prompt-files.js');

/** Runs `code` (CommonJS) as nobody; null when this process cannot start one that reads the build and `dir`. */
function asNobody(code: string, dir: string): string | null {
  if (process.getuid?.() !== 0) return null;
  const reads = [MODULE, dir].map((p) => `require('fs').accessSync(${JSON.stringify(p)});`).join('');
  const probe = spawnSync(process.execPath, ['-e', reads], { uid: NOBODY, gid: NOBODY });
  if (probe.status !== 0) return null;
  const res = spawnSync(process.execPath, ['-e', code], { uid: NOBODY, gid: NOBODY, encoding: 'utf8' });
  return `${res.stdout}${res.stderr}`;
}

describe('PromptFiles in a state dir another user wrote', () => {
  it('counts a prompt it may not touch as stored, and writes nothing', async () => {
    // Not under the suite's own temp dir (0700): the system's, which every user can reach.
    const state = mkdtempSync(join('/tmp', 'revloop-shared-'));
    made.push(state);
    chmodSync(state, 0o755);
    const prompts = join(state, 'prompts');
    mkdirSync(prompts, { mode: 0o755 });
    const digest = 'c'.repeat(64);
    const path = join(prompts, `${digest}.txt`);
    writeFileSync(path, 'stored by root\n', { mode: 0o644 });
    const before = statSync(path);
    const out = asNobody(
      `
      import(${JSON.stringify(MODULE)})
        .then((m) => new m.PromptFiles(${JSON.stringify(state)}).save(${JSON.stringify(digest)}, 'stored by root\\n'))
        .then(() => console.log('saved'), (e) => console.log('failed', e.code, e.message));`,
      state,
    );
    if (out === null) {
      console.warn('skipped: needs root, and the build readable by nobody');
      return;
    }
    expect(out.trim()).toBe('saved');
    expect(readFileSync(path, 'utf8')).toBe('stored by root\n');
    expect(statSync(path).mtimeMs).toBe(before.mtimeMs);
  });
});
