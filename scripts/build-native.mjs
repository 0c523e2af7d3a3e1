#!/usr/bin/env node
// Builds native/revloop_spawn.node (posix_spawn for git processes; see
// native/spawn.c) with the node-gyp that npm ships, against this Node's own
// headers. Optional: where it cannot be built (no compiler, not Linux) it says
// so in one line and revloop starts processes through child_process instead.
// `npm run build` and `npm install` run it; it does nothing when the module is
// newer than its sources.
import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dir = join(root, 'native');
const built = join(dir, 'build', 'Release', 'revloop_spawn.node');
const sources = ['spawn.c', 'binding.gyp'].map((f) => join(dir, f));

const skip = (why) => {
  console.log(`revloop: native spawn not built (${why}); processes start through child_process, more slowly`);
  process.exit(0);
};

if (process.platform !== 'linux') skip(`${process.platform} is not Linux`);
const mtime = (p) => statSync(p).mtimeMs;
if (existsSync(built) && sources.every((s) => mtime(s) <= mtime(built))) process.exit(0);

// npm passes its node-gyp to scripts; run directly, the copy inside npm's own install.
const prefix = dirname(dirname(process.execPath));
const gyp = [
  process.env.npm_config_node_gyp,
  join(prefix, 'lib', 'node_modules', 'npm', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js'),
].find((p) => p && existsSync(p));
if (!gyp) skip('node-gyp not found');
const args = [gyp, 'rebuild', `--directory=${dir}`];
// Headers from this Node's install, so nothing is downloaded.
if (!process.env.npm_config_nodedir && existsSync(join(prefix, 'include', 'node', 'node_api.h')))
  args.push(`--nodedir=${prefix}`);
const res = spawnSync(process.execPath, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
if (res.status !== 0) {
  const lines = `${res.stderr}\n${res.stdout}`
    .split('\n')
    .filter((l) => /error/i.test(l) && !/gyp ERR! (cwd|node|System|command|stack)/.test(l));
  skip(lines[0]?.trim() || `node-gyp exited ${res.status}`);
}
