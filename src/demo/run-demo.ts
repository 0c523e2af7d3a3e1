/**
 * `revloop demo`: builds a fixture repository whose change introduces a real
 * lost update (or, for `verdicts`, thirty small files reviewed before and
 * after a push), and runs the whole loop on it offline with scripted agents.
 * Returns what happened and whether it happened as designed.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CONTROLLER_REVIEWER, type RunReport } from '../core/run-report.js';
import { stage } from '../core/stage-results.js';
import { createFixtureRepo } from '../git/fixture-repo.js';
import { composeDeps } from '../loop/compose.js';
import type { LoopEvent } from '../loop/deps.js';
import { reviewRevision } from '../loop/operations.js';
import { loadRunReport } from '../loop/outputs/run-report-loader.js';
import { openStore } from '../store/index.js';
import { CHECK_FILE, defaultScript, oscillationScript } from './scripts.js';
import { verdictsExpectations, verdictsPlan } from './verdicts-scenario.js';
import { AUDIT, CRITERIA, STORE, WALLET_BASE, WALLET_HEAD } from './wallet-fixture.js';

export const DEMO_SCENARIOS = ['default', 'oscillation', 'verdicts'] as const;
export type DemoScenario = (typeof DEMO_SCENARIOS)[number];

export interface DemoRun {
  report: RunReport;
  recordPath: string | null;
}

export interface DemoResult {
  dir: string;
  /** The last run (the only one, but for `verdicts`). */
  report: RunReport;
  recordPath: string | null;
  /** Every run, in order: the change as first pushed, then after each push. */
  runs: DemoRun[];
  /** Expectations the scenario was designed to meet, and whether it met each. */
  checks: { what: string; ok: boolean }[];
}

const CONFIG = `# revloop demo config: three scripted reviewers, a refuter, a fixer and a check.
criteria: REVIEW.md
reviewers:
  - { name: correctness, adapter: scripted, script: review/replies.json }
  - { name: standards, adapter: scripted, script: review/replies.json }
  - { name: annotations, adapter: scripted, script: review/replies.json }
refuter: { adapter: scripted, script: review/replies.json }
fixer: { adapter: scripted, script: review/replies.json }
checks:
  - { name: credits-add-up, run: [node, test/credits.mjs], timeoutSeconds: 60 }
budgets: { rounds: 5, wallSeconds: 300, costUsd: 1 }
retry: { attempts: 3, baseDelayMs: 50, maxDelayMs: 1000 }
`;

/** What a scenario commits and reviews: main, the change on its branch, then each push reviewed again. */
interface DemoPlan {
  base: Record<string, string>;
  baseMessage: string;
  branch: string;
  change: { files: Record<string, string>; message: string };
  pushes: { files: Record<string, string>; message: string }[];
}

function walletPlan(scenario: DemoScenario): DemoPlan {
  const script = scenario === 'oscillation' ? oscillationScript() : defaultScript();
  return {
    base: {
      '.gitignore': '.revloop/\n',
      'README.md': '# wallet\n\nA tiny wallet used by the revloop demo.\n',
      'REVIEW.md': CRITERIA,
      'revloop.config.yaml': CONFIG,
      'review/replies.json': `${JSON.stringify(script, null, 2)}\n`,
      'src/wallet.js': WALLET_BASE,
      'src/store.js': STORE,
      'src/audit.js': AUDIT,
      'test/credits.mjs': CHECK_FILE,
      'package.json': '{ "name": "wallet", "type": "module", "private": true }\n',
    },
    baseMessage: 'wallet: deposits through an atomic update',
    branch: 'feature/refunds',
    change: { files: { 'src/wallet.js': WALLET_HEAD }, message: 'wallet: credit refunds and audit them' },
    pushes: [],
  };
}

export async function runDemo(opts: {
  dir?: string | undefined;
  scenario: DemoScenario;
  env: NodeJS.ProcessEnv;
  signal?: AbortSignal | undefined;
  onEvent?: ((e: LoopEvent) => void) | undefined;
}): Promise<DemoResult> {
  const dir = opts.dir ?? mkdtempSync(join(tmpdir(), 'revloop-demo-'));
  const plan = opts.scenario === 'verdicts' ? verdictsPlan() : walletPlan(opts.scenario);
  const repo = await createFixtureRepo(dir);
  await repo.commit(plan.base, plan.baseMessage);
  await repo.branch(plan.branch);
  await repo.commit(plan.change.files, plan.change.message);

  const store = await openStore('sqlite:.revloop/ledger.db', { repoRoot: dir });
  try {
    const deps = composeDeps({
      store,
      repoRoot: dir,
      env: opts.env,
      signal: opts.signal,
      onEvent: opts.onEvent,
    });
    const review = async (): Promise<DemoRun> => {
      const res = await reviewRevision(deps, {
        repoDir: dir,
        baseRef: 'main',
        headRef: plan.branch,
        change: plan.branch,
        configFrom: 'base',
      });
      if (res.kind !== 'run') throw new Error(`demo admission deferred: ${res.detail}`);
      const report = await loadRunReport(store, res.run.id);
      if (!report) throw new Error('demo run vanished');
      return { report, recordPath: res.recordPath };
    };
    const runs = [await review()];
    for (const push of plan.pushes) {
      await repo.commit(push.files, push.message);
      runs.push(await review());
    }
    const last = runs[runs.length - 1] as DemoRun;
    const checks =
      opts.scenario === 'verdicts'
        ? verdictsExpectations(runs.map((r) => r.report))
        : expectations(opts.scenario, last.report);
    return { dir, report: last.report, recordPath: last.recordPath, runs, checks };
  } finally {
    await store.close();
  }
}

function expectations(scenario: Exclude<DemoScenario, 'verdicts'>, r: RunReport): DemoResult['checks'] {
  const f = r.findings;
  const by = (reviewer: string, round: number) =>
    f.filter((x) => x.reviewer === reviewer && x.round === round);
  if (scenario === 'default') {
    return [
      { what: 'the run completed clear', ok: r.run.status === 'completed' && r.run.outcome === 'clear' },
      { what: 'it took two rounds: review + fix, then a clean review', ok: r.rounds.length === 2 },
      {
        what: 'the vague MODERATE was demoted to MINOR (invariant 9)',
        ok: by('standards', 1)[0]?.gate.kind === 'demoted',
      },
      {
        what: 'the plausible but wrong MODERATE was refuted (invariant 10)',
        ok: by('annotations', 1)[0]?.refutation?.decision === 'refuted',
      },
      {
        what: 'the check the change broke (it passes at the base) blocked round 1, and no later round',
        ok:
          stage(r.stages, 0, 'checks')?.base?.results.every((c) => c.passed) === true &&
          by(CONTROLLER_REVIEWER, 1).length === 1 &&
          by(CONTROLLER_REVIEWER, 2).length === 0,
      },
      {
        what: 'the concrete MAJOR was upheld and fixed',
        ok: by('correctness', 1)[0]?.refutation?.decision === 'upheld' && by('correctness', 2).length === 0,
      },
      { what: 'a fix commit became the run head', ok: r.run.head !== r.run.snapshot.head },
    ];
  }
  return [
    {
      what: 'the run completed with findings',
      ok: r.run.status === 'completed' && r.run.outcome === 'findings',
    },
    {
      what: 'the stop rule ended it (no_progress), before the round budget',
      ok: r.run.stopReason === 'no_progress' && r.rounds.length < 5,
    },
    {
      what: 'the fix for correctness tripped standards in round 2',
      ok: by('standards', 2).some((x) => x.gate.kind === 'kept'),
    },
    {
      what: 'the scope lock held a re-raise on a line standards had passed (invariant 11)',
      ok: by('standards', 2).some((x) => x.gate.kind === 'demoted' && x.gate.rule === 'scope_lock'),
    },
  ];
}
