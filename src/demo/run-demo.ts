/**
 * `revloop demo`: builds a fixture repository whose change introduces a real
 * lost update, and runs the whole loop on it offline with scripted agents.
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
import { AUDIT, CRITERIA, STORE, WALLET_BASE, WALLET_HEAD } from './wallet-fixture.js';

export type DemoScenario = 'default' | 'oscillation';

export interface DemoResult {
  dir: string;
  report: RunReport;
  recordPath: string | null;
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

export async function runDemo(opts: {
  dir?: string | undefined;
  scenario: DemoScenario;
  env: NodeJS.ProcessEnv;
  signal?: AbortSignal | undefined;
  onEvent?: ((e: LoopEvent) => void) | undefined;
}): Promise<DemoResult> {
  const dir = opts.dir ?? mkdtempSync(join(tmpdir(), 'revloop-demo-'));
  const repo = await createFixtureRepo(dir);
  const script = opts.scenario === 'oscillation' ? oscillationScript() : defaultScript();
  await repo.commit(
    {
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
    'wallet: deposits through an atomic update',
  );
  await repo.branch('feature/refunds');
  await repo.commit({ 'src/wallet.js': WALLET_HEAD }, 'wallet: credit refunds and audit them');

  const store = await openStore('sqlite:.revloop/ledger.db', { repoRoot: dir });
  try {
    const deps = composeDeps({
      store,
      repoRoot: dir,
      env: opts.env,
      signal: opts.signal,
      onEvent: opts.onEvent,
    });
    const res = await reviewRevision(deps, {
      repoDir: dir,
      baseRef: 'main',
      headRef: 'feature/refunds',
      change: 'feature/refunds',
      configFrom: 'base',
    });
    if (res.kind !== 'run') throw new Error(`demo admission deferred: ${res.detail}`);
    const report = await loadRunReport(store, res.run.id);
    if (!report) throw new Error('demo run vanished');
    return { dir, report, recordPath: res.recordPath, checks: expectations(opts.scenario, report) };
  } finally {
    await store.close();
  }
}

function expectations(scenario: DemoScenario, r: RunReport): DemoResult['checks'] {
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
