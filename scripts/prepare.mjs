#!/usr/bin/env node
// `prepare`: builds dist/ where the dev dependencies are (a checkout after `npm ci`, a
// project's git dependency). Where they are not (`npm pack` in a fresh clone), the build
// would fail the pack: the package then runs its committed bundle (bin/revloop.mjs).
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';

try {
  createRequire(import.meta.url).resolve('typescript');
} catch {
  console.log('revloop: no dev dependencies here; the installed revloop runs action/dist/revloop.mjs');
  process.exit(0);
}
const r = spawnSync('npm', ['run', 'build'], { stdio: 'inherit', shell: process.platform === 'win32' });
process.exit(r.status ?? 1);
