import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { CONFIG_NAMES } from '../../config/locate.js';
import { UsageError } from '../../core/errors.js';
import { createGit } from '../../git/index.js';
import { writeFileAtomic } from '../../io/atomic-file.js';
import { DEFAULT_KEY_PREFIX, generateKeyPair } from '../../record/keys.js';
import { type Command, printJson } from '../io.js';

interface Opts {
  repo?: string;
  force?: boolean;
  json?: boolean;
}

const CONFIG = `# revloop config: read from the BASE commit of each review, so commit it on your main branch.
# Schema: node_modules/revloop/schema/revloop.config.schema.json
criteria: REVIEW.md
store: sqlite:.revloop/ledger.db      # or postgres://user@host/db for many CI runners

reviewers:                            # every reviewer runs every round, in this order
  - name: correctness
    adapter: claude-code              # runs \`claude -p --output-format stream-json --verbose\` (prompt on stdin)
    # model: claude-sonnet-4-5        # pin it: a reply from another model fails the run (model drift)
  # - name: standards
  #   adapter: openai                 # any OpenAI-compatible endpoint
  #   baseURL: http://127.0.0.1:8080/v1
  #   model: some-model-id
  #   apiKeyEnv: OPENAI_API_KEY       # the variable's NAME; keys are never stored
  # - name: security
  #   command: [node, tools/review.mjs]   # any CLI: prompt on stdin, JSON reply on stdout

# refuter: { adapter: claude-code }   # tries to refute each blocker before it costs a rework round
# fixer: { adapter: claude-code }     # edits an isolated worktree; revloop commits its edit
# checks:
#   - { name: unit, run: [npm, test] }

# Left out of prompts, scope checks and coverage, and listed in the record with the rule that matched:
# lockfiles, minified files and build output cost tokens in every call and say little to a reviewer.
# Read from the base like the rest; a change that edits this list needs a person's settlement.
ignore:
  - "**/package-lock.json"
  - "**/npm-shrinkwrap.json"
  - "**/yarn.lock"
  - "**/pnpm-lock.yaml"
  - "**/Cargo.lock"
  - "**/poetry.lock"
  - "**/Gemfile.lock"
  - "**/composer.lock"
  - "**/go.sum"
  - "**/*.min.js"
  - "**/*.min.css"
  - "**/*.map"
  - "**/node_modules/**"
  - "**/dist/**"
# review: { ignoreLinguist: true }    # also what .gitattributes marks linguist-generated / -vendored
#                                     # (then a change to .gitattributes needs a person's settlement too)

budgets: { rounds: 5, wallSeconds: 1800, costUsd: 5 }
timeouts: { callSeconds: 300 }
retry: { attempts: 3 }
policy: { requireScenario: true, scopeLock: true, stopWindow: 2 }
`;

const CRITERIA = `# Review criteria

Number each rule: reviewers cite them as the clause a blocker violates.

R1. Correctness: the change does what it says for every input it accepts; no lost updates, no unhandled errors.
R2. Security: no secrets in code or logs; all external input is validated.
R3. Tests: behaviour the change adds or fixes is covered by a test.
`;

/** `revloop init`: a starter config and criteria, a signing key, and .revloop/ ignored by git. */
const init: Command<Opts> = async (_args, opts, io) => {
  const root = await createGit().root(resolve(io.cwd, opts.repo ?? '.'));
  const written: string[] = [];
  const put = (name: string, text: string) => {
    const path = join(root, name);
    if (existsSync(path) && !opts.force)
      throw new UsageError(`${name} already exists (use --force to overwrite)`);
    writeFileAtomic(path, text);
    written.push(name);
  };
  const hasConfig = CONFIG_NAMES.some((n) => existsSync(join(root, n)));
  if (hasConfig && !opts.force)
    throw new UsageError('a revloop config already exists (use --force to overwrite)');
  put('revloop.config.yaml', CONFIG);
  if (!existsSync(join(root, 'REVIEW.md')) || opts.force) put('REVIEW.md', CRITERIA);
  const ignore = join(root, '.gitignore');
  const current = existsSync(ignore) ? readFileSync(ignore, 'utf8') : '';
  if (!/^\/?\.revloop\/?$/m.test(current)) {
    writeFileAtomic(ignore, `${current}${current && !current.endsWith('\n') ? '\n' : ''}.revloop/\n`);
    written.push('.gitignore');
  }
  const prefix = join(root, DEFAULT_KEY_PREFIX);
  const key = existsSync(`${prefix}.key`) ? null : generateKeyPair(prefix);
  if (key) written.push(`${DEFAULT_KEY_PREFIX}.key`, `${DEFAULT_KEY_PREFIX}.pub`);
  if (opts.json) printJson(io, { root, written, keyId: key?.keyId ?? null });
  else {
    io.stdout(`revloop init: wrote ${written.join(', ')} in ${root}\n`);
    if (key) io.stdout(`signing key id ${key.keyId} (private key mode 0600, never printed)\n`);
    io.stdout(
      'next: edit revloop.config.yaml, commit it with REVIEW.md on your base branch, then `revloop review`\n',
    );
  }
  return 0;
};

export default init;
