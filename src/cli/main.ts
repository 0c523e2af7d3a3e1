#!/usr/bin/env node
/**
 * The entry point: parses argv with commander, lazy-loads one command, and is
 * the only place that calls process.exit. Commands get plain options and a
 * CliIO; they hold no logic beyond parsing and printing.
 */
import { readFileSync } from 'node:fs';
import type { Command as Cli } from 'commander';
import { RevloopError } from '../core/errors.js';
import { Exit, exitCodeFor } from './exit-codes.js';
import type { CliIO, Command } from './io.js';
import { terminalSafe } from './terminal-safe.js';

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  version: string;
};

const controller = new AbortController();
/** The run a command is driving (CliIO.noteRun), named by every way out that leaves it unfinished. */
let drivingRun: string | null = null;
const resumeHint = (runId: string) =>
  `run ${runId} did not finish; resume it with: ${io.self} resume ${runId}`;
for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.on(sig, () => {
    if (controller.signal.aborted) {
      // A second interrupt does not wait for the call under way; it still says what is left.
      if (drivingRun) process.stderr.write(`\nrevloop: interrupted: ${resumeHint(drivingRun)}\n`);
      process.exit(130);
    }
    controller.abort();
  });
}

const io: CliIO = {
  cwd: process.cwd(),
  env: process.env,
  // Everything printed may carry reviewer text or ledger ids: escaped where it meets the terminal.
  stdout: (t) => process.stdout.write(terminalSafe(t)),
  stderr: (t) => process.stderr.write(terminalSafe(t)),
  progress: (t) => process.stderr.write(t),
  isTTY: Boolean(process.stdout.isTTY),
  stopSignal: controller.signal,
  noteRun: (runId) => {
    drivingRun = runId;
  },
  self: /(^|\/)revloop$/.test(process.argv[1] ?? '')
    ? 'revloop'
    : `node ${process.argv[1] ?? 'dist/cli/main.js'}`,
};

let exitCode: number = Exit.ok;

// `verify` gates every CI job, so a plain invocation of it skips loading
// commander (bench/verify-cold-start.bench.mjs); anything else (help, unknown
// flags) falls through to the full parser below.
if (process.argv[2] === 'verify') {
  const verify = await import('./commands/verify.js');
  const parsed = verify.parseVerifyArgv(process.argv.slice(3));
  if (parsed) {
    try {
      exitCode = await verify.default(parsed.args, parsed.opts, io);
    } catch (err) {
      io.stderr(
        `revloop: ${err instanceof RevloopError ? err.message : `internal error: ${(err as Error)?.stack ?? String(err)}`}\n`,
      );
      exitCode = exitCodeFor(err);
    }
    process.exitCode = exitCode;
    await new Promise<void>((done) => process.stdout.write('', () => done()));
    process.exit(exitCode);
  }
}

const { Command: CliCommand, CommanderError, Option } = await import('commander');
// Fixed choices are listed once, beside what reads them; commander refuses anything else (exit 2).
const { CONFIG_SOURCES, INCOMPLETE_CONCLUSIONS, REVIEW_EVENTS, SETTLE_DECISIONS, STOP_RULES } = await import(
  '../core/choices.js'
);
const { EXPORT_FORMATS } = await import('../report/formats.js');
const { PRESET_NAMES, SAMPLE_ON, UPGRADES } = await import('../sim/params.js');
const configFrom = (help: string) =>
  new Option('--config-from <where>', help).choices(CONFIG_SOURCES).default('base');

/** Registers a command whose module is imported only when it runs (keeps `verify` cold start small). */
function lazy(name: string) {
  return async (...all: unknown[]) => {
    const cmd = all[all.length - 1] as Cli;
    const opts = cmd.opts();
    const args = cmd.args;
    const mod = (await import(`./commands/${name}.js`)) as { default: Command };
    exitCode = await mod.default(args, opts, io);
  };
}

const program = new CliCommand('revloop')
  .description('A controller for AI code review loops: bounded, replayable, crash-safe, signed.')
  .version(pkg.version, '-V, --version')
  // Bad input is one line naming what was wrong (see `revloop --help` for usage).
  .configureOutput({
    writeErr: (str) => io.stderr(str),
    outputError: (str, write) => write(`revloop: ${str.replace(/^error: /, '').trimEnd()}\n`),
  })
  .exitOverride();

const withRepo = (c: Cli) =>
  c
    .option('--repo <dir>', 'repository directory', '.')
    .option('--store <url>', 'ledger: sqlite:PATH or postgres://...');

/** Flags shared by `publish` and `review --publish` (src/forge/target.ts reads the CI environment for the rest). */
const withPublish = (c: Cli) =>
  c
    .option(
      '--repository <slug>',
      'GitHub OWNER/NAME or GitLab project id (default: GITHUB_REPOSITORY / CI_PROJECT_ID)',
    )
    .option('--pr <n>', 'pull or merge request number (default: from the CI event)')
    .option('--api-url <url>', 'API base URL (default: GITHUB_API_URL / CI_API_V4_URL)')
    .option(
      '--token-env <name>',
      'environment variable holding the token (default: GITHUB_TOKEN / GITLAB_TOKEN)',
    )
    // No commander default: a flag given wins over the config's publish.github.event, an absent one does not.
    .addOption(
      new Option('--event <e>', 'review event when blockers stand (default COMMENT)').choices(REVIEW_EVENTS),
    )
    .option('--no-suggestions', "do not offer the fixer's changes as suggestions")
    .option('--suggestion-lines <n>', 'longest fixer change offered as a suggestion (default 10)')
    .addOption(
      new Option(
        '--incomplete <c>',
        'check conclusion for a run that did not complete (default neutral)',
      ).choices(INCOMPLETE_CONCLUSIONS),
    )
    .option('--key <pub...>', "trusted public key file(s) for the record's verification")
    .option('--keys-from <ref>', 'trust the keys listed in the config at this ref');

program
  .command('init')
  .description('write a starter config, criteria and a signing key')
  .option('--repo <dir>', 'repository directory', '.')
  .option('--force', 'overwrite existing files')
  .option('--json', 'print JSON')
  .action(lazy('init'));

withPublish(withRepo(program.command('review')))
  .description('admit and run a review loop in this process')
  .option('--base <ref>', 'base ref (default: the upstream or main)')
  .option('--head <ref>', 'head ref', 'HEAD')
  .option('--change <id>', 'change identity (PR number or branch); default: the head branch')
  .option('--config <path>', 'config path in the repository')
  .addOption(configFrom('read config and criteria from "base" (default) or "head"'))
  .option('--out <file>', 'also write the signed record here')
  .option('--apply', 'fast-forward the change branch to the run head when it ends clear')
  .option(
    '--require-confined',
    'refuse to start unless reviewers, fixer and checks can run confined (exit 14)',
  )
  .option('--rerun', 'review this revision again, as a new run (with --reason)')
  .option('--reason <text>', 'why the revision is reviewed again (recorded with who asked)')
  .option('--json', 'print one JSON document')
  .addOption(
    new Option('--publish <forge>', 'publish the run to its pull request').choices(['github', 'gitlab']),
  )
  .action(lazy('review'));

withRepo(program.command('enqueue'))
  .description('admit a run without running it (for workers)')
  .option('--base <ref>', 'base ref')
  .option('--head <ref>', 'head ref', 'HEAD')
  .option('--change <id>', 'change identity')
  .option('--config <path>', 'config path in the repository')
  .addOption(configFrom('base or head'))
  .option('--max-active <n>', 'queue capacity (max queued or running runs)')
  .option('--cost-budget <usd>', 'cost budget per window across runs')
  .option(
    '--cost-window <seconds>',
    'the cost budget window (default: admission.costWindowSeconds, else 86400)',
  )
  .option('--rerun', 'admit this revision again, as a new run (with --reason)')
  .option('--reason <text>', 'why the revision is reviewed again (recorded with who asked)')
  .option('--json', 'print one JSON document')
  .action(lazy('enqueue'));

withRepo(program.command('worker'))
  .description('claim and run admitted runs')
  .option('--concurrency <n>', 'runs at once', '1')
  .option('--exit-when-idle', 'stop when the queue is empty')
  .option('--lease-seconds <n>', 'lease time to live (default: REVLOOP_LEASE_MS, else 30 s)')
  .option('--store-patience <seconds>', 'how long to wait for an unavailable ledger before exiting 5', '120')
  .option('--require-confined', 'refuse to start unless the runs can run confined (exit 14)')
  .option(
    '--api-url <url>',
    'the forge API runs admitted by `revloop serve` are published to (default GITHUB_API_URL or CI_API_V4_URL)',
  )
  .option('--token-env <name>', 'environment variable holding the forge token for those publications')
  .option('--json', 'print JSON lines')
  .action(lazy('worker'));

withRepo(program.command('status'))
  .description('list runs, or one run with its rounds')
  .argument('[run]', 'run id or prefix')
  .option('--limit <n>', 'runs to list', '20')
  .option('--json', 'print one JSON document')
  .action(lazy('status'));

withRepo(program.command('settle'))
  .description("record a named person's decision on a finding")
  .argument('<finding>', 'finding id or prefix')
  .requiredOption('--by <name>', 'who decides')
  .addOption(new Option('--decision <d>', 'the decision').choices(SETTLE_DECISIONS).makeOptionMandatory())
  .option('--note <text>', 'why')
  .option('--json', 'print one JSON document')
  .action(lazy('settle'));

withRepo(program.command('resume'))
  .description('resume a run whose owner died')
  .argument('<run>', 'run id or prefix')
  .option('--out <file>', 'also write the signed record here')
  .option('--require-confined', 'refuse to go on unless the run can go on confined (exit 14)')
  .option('--json', 'print one JSON document')
  .action(lazy('resume'));

withRepo(program.command('gc'))
  .description(
    "remove what no live run holds: pool checkouts, temp checkouts, killed writers' temp files, idle repository mirrors",
  )
  .option(
    '--prompts-older-than <age>',
    'also remove stored prompts no run used for this long (30d, 12h, 90m)',
  )
  .option('--json', 'print one JSON document')
  .action(lazy('gc'));

withRepo(program.command('replay'))
  .description('recompute every decision of a run from its recorded verdicts')
  .argument('<run>', 'run id or prefix')
  .option('--json', 'print one JSON document')
  .action(lazy('replay'));

withRepo(program.command('export'))
  .description('write a report of a run')
  .argument('<run>', 'run id or prefix')
  .addOption(new Option('--format <f>', 'report format').choices(EXPORT_FORMATS).default('markdown'))
  .option('--out <file>', 'write to a file instead of stdout')
  .action(lazy('export'));

withPublish(withRepo(program.command('publish')))
  .description('publish a run to its pull request: one review, inline comments, a check on the live head')
  .argument('<run>', 'run id or prefix')
  .addOption(new Option('--to <forge>', 'the forge').choices(['github', 'gitlab']).makeOptionMandatory())
  .option('--json', 'print one JSON document')
  .action(lazy('publish'));

program
  .command('verify')
  .description('check a signed record against the checkout')
  .argument('[record]', 'record file (DSSE envelope)')
  .option('--run <run>', "verify this run's record instead, written here from the ledger first")
  .option('--store <url>', 'ledger of --run: sqlite:PATH or postgres://...')
  .option('--key <pub...>', 'trusted public key file(s)')
  .option(
    '--keys-from <ref>',
    'trust the keys listed in the config at this ref (default: origin/HEAD, else main, else master)',
  )
  .option(
    '--target <ref>',
    'the branch the change merges into: the record must cover from its merge base (default: --keys-from, else origin/HEAD, main, master)',
  )
  .option('--repo <dir>', 'checkout directory', '.')
  .option('--allow-findings', 'accept outcome "findings"')
  .option('--require-confined', "refuse a record whose run's processes did not all run confined (exit 14)")
  .option(
    '--no-reuse',
    'refuse a record in which any verdict was reused from an earlier identical call (exit 16)',
  )
  .option('--json', 'print one JSON document')
  .action(lazy('verify'));

program
  .command('keygen')
  .description('write an Ed25519 key pair')
  .option('--repo <dir>', 'repository directory', '.')
  .option('--out <prefix>', 'path prefix for PREFIX.key and PREFIX.pub (default .revloop/keys/signing)')
  .option('--force', 'overwrite an existing key')
  .option('--json', 'print one JSON document')
  .action(lazy('keygen'));

program
  .command('hook')
  .description('git hooks')
  .command('install')
  .description('install a pre-push hook that requires a verifying record')
  .option('--repo <dir>', 'repository directory', '.')
  .option('--force', 'replace an existing pre-push hook')
  .action(lazy('hook-install'));

program
  .command('demo')
  .description('build a fixture repository with a real bug and run the whole loop on it, offline')
  .option('--dir <dir>', 'where to build the fixture (default: a new temp dir)')
  .addOption(
    new Option('--scenario <s>', 'demo scenario')
      .choices(['default', 'oscillation', 'verdicts'])
      .default('default'),
  )
  .option('--json', 'print one JSON document')
  .action(lazy('demo'));

program
  .command('sim')
  .description('Loop Lab: Monte-Carlo model of review-loop convergence')
  .addOption(new Option('--preset <p>', 'a hostility preset (docs/sim.md)').choices(PRESET_NAMES))
  .option('--upgrades <list>', `comma-separated, of ${UPGRADES.join(', ')} (or "none"); default U1-U4`)
  .option('--trials <n>', 'trials per side')
  .option('--seed <n>', 'random seed')
  .option('--reviewers <n>', 'reviewers')
  .option('--defects <n>', 'initial real defects')
  .option('--regions <n>', 'hunks of the diff a finding can sit on')
  .option('--detection <p>', 'detection probability')
  .option('--false-positive <p>', 'false-positive rate')
  .option('--vague <p>', 'share of real findings without a scenario')
  .option('--vague-false <p>', 'share of false positives without a scenario')
  .option('--inflation <p>', 'severity inflation')
  .option('--gaming <p>', 'share of inflated nits with a plausible scenario (pass U1)')
  .option('--oscillation <p>', 'oscillation coupling')
  .option('--fix-success <p>', 'fix success')
  .option('--refuter-accuracy <p>', 'refuter accuracy')
  .option('--simplify <p>', 'chance a rework round shrinks the diff')
  .option('--cap <n>', "baseline's round cap")
  .option('--max-rounds <n>', 'horizon: rounds simulated at most, every side')
  .option('--stop-window <n>', "the live policy's stopWindow")
  .option('--shrink-ratio <r>', "the live policy's shrinkRatio")
  .addOption(
    new Option(
      '--stop-rule <r>',
      "U4's rule: the live loop's evidence (default), or the seed's rate rule (count)",
    ).choices(STOP_RULES),
  )
  .option('--samples <n>', 'U5: samples per review call')
  .option('--block <k>', 'U5: a finding blocks when at least k of the n samples raise it')
  .option('--sample-detection <p>', 'U5: chance one sample raises a defect its reviewer can see')
  .addOption(
    new Option(
      '--sample-on <when>',
      'U5: sample every call (all), or only after a first finding (blockers)',
    ).choices(SAMPLE_ON),
  )
  .option(
    '--recurrence <p>',
    "chance a false positive repeats its reviewer's last wrong claim (U6 remembers it)",
  )
  .option('--fit <files...>', 'estimate the environment from exported round logs, then simulate that team')
  .option(
    '--sweep',
    "sweep stopWindow, shrinkRatio and upgrades on/off, and U5's n and block; recommend each",
  )
  .option('--svg <file>', 'write the chart as SVG')
  .option('--json', 'print one JSON document')
  .action(lazy('sim'));

program
  .command('analyze')
  .description('Loop Lab: convergence and reviewer calibration from a round log')
  .argument('<file>', 'round log JSON, or - for stdin')
  .option('--svg <file>', 'write the chart as SVG')
  .option('--json', 'print one JSON document')
  .action(lazy('analyze'));

program
  .command('eval')
  .description(
    'recall and precision of a reviewer set on known-bug changes (docs/eval.md); also: eval mine, eval replay, eval import',
  )
  .argument('<corpus-or-verb>', 'a corpus (directory or JSON), or mine | replay | import')
  .argument('[more...]', 'replay: run ids; import: the downloaded files')
  .option('--config <file>', 'the reviewer set and policy to measure')
  .option('--against <file>', 'a second config, run on the same cases and compared')
  .option('--mode <m>', 'review (default: no fixer, one round) | loop (the whole loop)')
  .option('--window <n>', 'lines a finding may sit from a defect and still match (default 3)')
  .option('--format <f>', 'text | json | markdown; import: martian | swe-prbench')
  .option('--json', 'print one JSON document')
  .option('--out <file>', 'write the report to a file; mine, import: the corpus directory')
  .option('--seed <n>', 'bootstrap seed (default 1)')
  .option('--resamples <n>', 'bootstrap resamples (default 1000)')
  .option('--keep <dir>', "keep the cases' scratch repositories here")
  .option('--jobs <n>', 'cases run at once (default 4)')
  .option('--ledger <url>', 'scratch ledger (default memory:); sqlite:PATH keeps it for eval replay')
  .option('--repo <dir>', 'mine: the repository to propose cases from')
  .option('--since <ref>', 'mine: commits after this one')
  .option(
    '--source <glob...>',
    'mine: the files that count as source (default: a table of language extensions, outside tests and docs)',
  )
  .option('--reviewer <name>', 'replay: the recorded reviewer whose prompts are sent again')
  .option('--with <file>', 'replay: a config whose reviewer of that name answers them')
  .option('--store <url>', 'replay: the ledger the runs are in')
  .option('--repos <dir>', "import: clones of the benchmark's repositories, at DIR/OWNER/REPO")
  .option(
    '--split <file>',
    "import (swe-prbench): only the PRs of this split, e.g. the dataset's evals/eval_100.json",
  )
  .action(lazy('eval'));

withRepo(program.command('ui'))
  .alias('dashboard')
  .description('local dashboard')
  .option(
    '--eval <path>',
    'an eval report (revloop eval --format json) or a directory of them, shown at /eval',
  )
  .option('--port <n>', 'port (0 = any free)', '7357')
  .option('--host <h>', 'bind address', '127.0.0.1')
  .action(lazy('ui'));

withRepo(program.command('serve'))
  .description('webhook service on PostgreSQL: verified deliveries are admitted; workers review and publish')
  .addOption(
    new Option('--forge <forge>', 'the forge whose webhooks are served')
      .choices(['github', 'gitlab'])
      .default('github'),
  )
  .option('--repository <name>', 'the served repository: OWNER/NAME (GitLab: the project path)')
  .option('--remote <name>', "the clone's remote that is the forge's repository", 'origin')
  .option('--host <h>', 'bind address', '127.0.0.1')
  .option('--port <n>', 'port (0 = any free)', '8080')
  .option(
    '--secret-file <path>',
    'webhook secrets: the current one on the first line, the previous one (rotation) on the second; default: REVLOOP_WEBHOOK_SECRET and REVLOOP_WEBHOOK_SECRET_PREVIOUS',
  )
  .option('--drafts', 'review draft pull requests too')
  .option(
    '--bot <login...>',
    "logins whose events never trigger a run (revloop's own identity), besides every Bot",
  )
  .option('--max-body-bytes <n>', 'larger bodies are refused with 413', String(5 * 1024 * 1024))
  .option(
    '--reconcile-seconds <n>',
    'list open pull requests and admit missed heads this often, and on start (0: never)',
    '300',
  )
  .option('--api-url <url>', 'the forge API (default GITHUB_API_URL or CI_API_V4_URL, else the public one)')
  .option('--token-env <name>', 'environment variable holding the forge token for the reconciler')
  .option(
    '--max-active-runs <n>',
    "the served repository's runs queued or running at once; a delivery beyond it waits (default: the config's admission.maxActive)",
  )
  .option(
    '--daily-spend-usd <x>',
    "the served repository's spend over the last 24 hours; a delivery beyond it waits (default: the config's admission budget)",
  )
  .addHelpText(
    'after',
    '\nEndpoints: POST /webhooks/github, POST /webhooks/gitlab, GET /healthz, GET /readyz, GET /metrics.\nExit codes: 0 stopped by SIGINT/SIGTERM, 2 usage (no webhook secret, a bad flag), 5 ledger unavailable, 15 the ledger is not PostgreSQL.\nGuide: docs/service.md',
  )
  .action(lazy('serve'));

try {
  await program.parseAsync(process.argv);
} catch (err) {
  if (err instanceof CommanderError) {
    exitCode = err.exitCode === 0 ? Exit.ok : Exit.usage;
  } else if (err instanceof RevloopError) {
    // A ledger fault mid-run leaves an admitted run behind: name it, and the way back.
    const run = drivingRun && err.code.startsWith('store_') ? `; ${resumeHint(drivingRun)}` : '';
    io.stderr(`revloop: ${err.message}${run}\n`);
    exitCode = exitCodeFor(err);
  } else {
    io.stderr(`revloop: internal error: ${(err as Error)?.stack ?? String(err)}\n`);
    exitCode = Exit.internal;
  }
}
process.exitCode = exitCode;
// Let pending stdout drain; exit explicitly so stray handles (pools, timers) cannot keep us alive.
process.stdout.write('', () => process.exit(exitCode));
