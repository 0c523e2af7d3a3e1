// The kill harness's template repository, built once and copied per trial:
// main holds the config (real subprocess agents), criteria and a clean
// src/calc.js; `feature` plants two marked bugs, so a full run takes three
// rounds (fix A, fix B, clean review) with checks before and after each fix.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

export const AGENTS = resolve(import.meta.dirname, '../fixtures/crash-agents');
export const REVIEWERS = ['alpha', 'beta'];

/** Git runs isolated from the machine's config, with a fixed identity. */
export function gitEnv(extra = {}) {
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    LC_ALL: 'C',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_TERMINAL_PROMPT: '0',
    GIT_AUTHOR_NAME: 'Crash Harness',
    GIT_AUTHOR_EMAIL: 'crash@example.com',
    GIT_COMMITTER_NAME: 'Crash Harness',
    GIT_COMMITTER_EMAIL: 'crash@example.com',
    // The stand-in agents log to the temp dir, which a confined process does not see.
    REVLOOP_CONFINE: 'off',
    ...extra,
  };
}

export function git(dir, args) {
  return execFileSync('git', ['-c', 'core.hooksPath=/dev/null', ...args], {
    cwd: dir,
    env: gitEnv(),
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  }).trim();
}

const CLEAN = [
  '// A tiny calculator the crash harness reviews.',
  'export function add(a, b) {',
  '  return a + b;',
  '}',
  '',
  'export function total(xs) {',
  '  return xs.reduce((s, x) => add(s, x), 0);',
  '}',
  '',
  'export function sum3(a, b, c) {',
  '  return add(add(a, b), c);',
  '}',
  '',
];

/** The feature revision: new helpers, `bugs` (1 or 2) of them with a marked bug. */
export const featureSource = (bugs) =>
  [
    ...CLEAN.slice(0, 13),
    'export function plus(a, b) {',
    '  return a - b; // BUG-A',
    '}',
    '',
    'export function inc(a) {',
    '  return plus(a, 1);',
    '}',
    '',
    'export function combine(a, b) {',
    bugs >= 2 ? '  return a - b; // BUG-B' : '  return a + b;',
    '}',
    '',
  ].join('\n');

const criteria = `# Review rules
1. Arithmetic helpers return the mathematically correct value.
2. Every finding names a concrete failing input.
`;

function config(opts) {
  const node = JSON.stringify(process.execPath);
  const agent = (f, ...args) => `[${[node, JSON.stringify(join(AGENTS, f)), ...args].join(', ')}]`;
  // What the stand-in agents read (common.mjs): given on purpose, as a team would name its credentials.
  const env = `env: [CRASH_LOG, CRASH_SLEEP_MS, CRASH_FLAKY, CRASH_STATE_DIR, CRASH_MODE_REVIEWER, CRASH_MODE_REFUTER, CRASH_MODE_FIXER]`;
  return `# crash harness config: real subprocess agents
criteria: REVIEW.md
reviewers:
  - { name: alpha, command: ${agent('reviewer.mjs', 'BUG-A')}, ${env} }
  - { name: beta, command: ${agent('reviewer.mjs', 'BUG-B')}, ${env} }
refuter: { name: skeptic, command: ${agent('refuter.mjs')}, ${env} }
fixer: { name: mender, command: ${agent('fixer.mjs')}, ${env} }
checks:
  - { name: no-marked-bugs, run: ${agent('check.mjs')}, timeoutSeconds: 20, env: [CRASH_LOG, CRASH_SLEEP_MS] }
budgets: { rounds: 6, wallSeconds: ${opts.wallSeconds ?? 300}, costUsd: 1 }
timeouts: { callSeconds: ${opts.callSeconds ?? 20} }
retry: { attempts: 3, baseDelayMs: 5, maxDelayMs: 20 }
`;
}

/** A document the feature moves and edits. */
const NOTES = `# calc notes\n\n${Array.from({ length: 30 }, (_, i) => `- note ${i}: helpers stay pure\n`).join('')}`;

/** Builds the template in `dir`: main (clean) and feature (two bugs), checked out at feature. */
export function buildTemplate(dir, opts = {}) {
  mkdirSync(dir, { recursive: true });
  const write = (p, text) => {
    mkdirSync(dirname(join(dir, p)), { recursive: true });
    writeFileSync(join(dir, p), text);
  };
  git(dir, ['init', '--quiet', '--initial-branch=main']);
  write('.gitignore', '.revloop/\n');
  write('REVIEW.md', criteria);
  write('revloop.config.yaml', config(opts));
  write('src/calc.js', CLEAN.join('\n'));
  write('docs/notes.md', NOTES);
  git(dir, ['add', '-A']);
  git(dir, ['commit', '--quiet', '--no-gpg-sign', '-m', 'calc: base']);
  git(dir, ['checkout', '--quiet', '-b', 'feature']);
  write('src/calc.js', featureSource(opts.bugs ?? 2));
  // A move with an edit: its prompts come from git's rename detection (Git.promptSections), which a
  // resumed controller must ask again and get the same answer from (the same call keys).
  git(dir, ['rm', '--quiet', 'docs/notes.md']);
  write('docs/guide/notes.md', `${NOTES}- sums now skip missing values\n`);
  git(dir, ['add', '-A']);
  git(dir, ['commit', '--quiet', '--no-gpg-sign', '-m', 'calc: more helpers']);
  return { base: git(dir, ['rev-parse', 'main']), head: git(dir, ['rev-parse', 'feature']) };
}

/** Line count of every valid state of src/calc.js: a shorter or longer committed file is a partial edit. */
export const CALC_LINES = featureSource(2).split('\n').length;
