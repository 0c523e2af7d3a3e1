import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findExecutable } from '../../src/io/executable.js';
import { cleanupDirs, tempDir } from '../reviewers/call-request.js';

afterAll(cleanupDirs);

describe('findExecutable: where spawn would find a command', () => {
  const dir = tempDir();
  const bin = join(dir, 'bin');
  mkdirSync(bin);
  mkdirSync(join(dir, 'not-a-file'));
  writeFileSync(join(bin, 'agent'), '#!/bin/sh\n');
  chmodSync(join(bin, 'agent'), 0o755);
  writeFileSync(join(bin, 'plain'), 'not executable');
  chmodSync(join(bin, 'plain'), 0o644);

  it.each([
    ['a bare name along PATH', 'agent', `/nowhere:${bin}`, { ok: true, path: join(bin, 'agent') }],
    ['a bare name nowhere on PATH', 'agent', '/nowhere', { ok: false, errno: 'ENOENT' }],
    ['a bare name found only without the execute bit', 'plain', bin, { ok: false, errno: 'EACCES' }],
    ['a path relative to the working directory', './bin/agent', '', { ok: true, path: join(bin, 'agent') }],
    ['an absolute path', join(bin, 'agent'), '', { ok: true, path: join(bin, 'agent') }],
    ['a missing path', './bin/none', bin, { ok: false, errno: 'ENOENT' }],
    ['a directory', './not-a-file', bin, { ok: false, errno: 'EACCES' }],
    [
      'a relative PATH entry, against the working directory',
      'agent',
      'bin',
      { ok: true, path: join(bin, 'agent') },
    ],
  ] as const)('%s', (_name, file, path, want) => {
    expect(findExecutable(file, dir, path)).toEqual(want);
  });
});
