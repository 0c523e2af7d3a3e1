#!/usr/bin/env node
// Rebuilds the shipped corpus (corpus/) from real bug-fix commits of small
// MIT-licensed libraries, with `revloop eval mine`'s library function.
// Usage: node scripts/build-eval-corpus.mjs MIRRORS_DIR
// where MIRRORS_DIR/<owner>+<name>/repo is a clone of github.com/<owner>/<name>
// (the search tool's `fetch github:<owner>/<name>` lays them out so).
// The commits are built with fixed dates and identity, so the same clones
// give the same bundles and the same case ids.
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { mineCases } from '../dist/eval/mine.js';

const root = join(fileURLToPath(import.meta.url), '..', '..');
const out = join(root, 'corpus');
const mirrors = process.argv[2];
if (!mirrors) {
  console.error('usage: node scripts/build-eval-corpus.mjs MIRRORS_DIR');
  process.exit(2);
}

// skip: commits whose message says fix but that fix no behaviour (a comment, a test, the CI).
const REPOS = [
  { slug: 'sindresorhus/slugify', skip: [] },
  { slug: 'sindresorhus/camelcase', skip: [] },
  { slug: 'sindresorhus/decamelize', skip: ['0586fe4'] },
  { slug: 'sindresorhus/escape-string-regexp', skip: ['b3eb767'] },
  { slug: 'sindresorhus/p-limit', skip: [] },
  { slug: 'sindresorhus/pretty-bytes', skip: [] },
];

rmSync(out, { recursive: true, force: true });
mkdirSync(join(out, 'licenses'), { recursive: true });
for (const r of REPOS) {
  const name = r.slug.split('/')[1];
  const repo = join(mirrors, r.slug.replace('/', '+'), 'repo');
  const first = execFileSync('git', ['-C', repo, 'rev-list', '--max-parents=0', 'HEAD'], { encoding: 'utf8' })
    .trim()
    .split('\n')[0];
  const license = execFileSync('git', ['-C', repo, 'show', 'HEAD:license'], { encoding: 'utf8' });
  writeFileSync(join(out, 'licenses', `${name}.txt`), license);
  const res = await mineCases({
    repo,
    since: first,
    out,
    name,
    url: `https://github.com/${r.slug}`,
    license: 'MIT',
    licenseFile: `licenses/${name}.txt`,
    maxClean: 2,
    skip: r.skip,
  });
  console.log(`${r.slug}: ${res.fixes} fix case(s), ${res.clean} clean`);
}
