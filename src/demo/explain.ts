/** The demo's narration: what the loop did, round by round, and why. */
import type { FindingRow } from '../core/ledger.js';
import type { CheckResult } from '../core/progress.js';
import { CONTROLLER_REVIEWER } from '../core/run-report.js';
import { reviewerVerdicts, stage as stageOf } from '../core/stage-results.js';
import type { Stage } from '../core/types.js';
import type { DemoResult, DemoScenario } from './run-demo.js';

const INTRO: Record<DemoScenario, string> = {
  default: `The change under review (branch feature/refunds) adds Wallet.credit(), which reads a balance,
awaits the audit log, then writes balance + amount: two concurrent credits lose one (a lost update
across an await). Three scripted reviewers look at it; a refuter checks each blocker; a fixer edits.
The check credits-add-up passes on main and fails on the change: the change broke it, so it blocks too.`,
  oscillation: `Same change, harder loop: the fixer's cure for the lost update (a module-level lock) trips the
standards reviewer's "no module-level state" rule, and each later "fix" only renames the lock.`,
};

function fate(f: FindingRow): string {
  if (f.reviewer === CONTROLLER_REVIEWER)
    return "the controller's blocker: never the fixer's, it goes when the check passes again or a person accepts it";
  if (f.gate.kind === 'demoted' && f.gate.rule === 'no_scenario') {
    return `demoted to MINOR by gating: no concrete failure scenario and no criteria clause (invariant 9)`;
  }
  if (f.gate.kind === 'demoted' && f.gate.rule === 'scope_lock') {
    return `demoted to MINOR by the scope lock: ${f.reviewer} passed this line at ${f.gate.passedAt.slice(0, 8)} and said nothing about what it missed (invariant 11)`;
  }
  if (f.refutation?.decision === 'refuted') return `refuted by ${f.refutation.by}: ${f.refutation.reason}`;
  if (f.refutation?.decision === 'upheld') return `upheld by ${f.refutation.by}: blocks`;
  return f.severity === 'MINOR' ? 'MINOR: listed, does not block' : 'blocks';
}

const passing = (results: readonly CheckResult[]) =>
  results.map((c) => `${c.name} ${c.passed ? 'passes' : 'FAILS'}`).join(', ');

export function explainDemo(scenario: DemoScenario, res: DemoResult, cli = 'revloop'): string {
  const { report } = res;
  const out: string[] = [
    '',
    `revloop demo (${scenario})`,
    '',
    INTRO[scenario],
    '',
    `fixture repository: ${res.dir}`,
    '',
  ];
  const stage = <S extends Stage>(round: number, name: S) => stageOf(report.stages, round, name);
  const baseline = stage(0, 'checks');
  if (baseline) {
    out.push(`Baseline checks on the change: ${passing(baseline.results)}`);
    // Only the checks that fail on the change run at its base: did the change break them?
    if (baseline.base)
      out.push(
        `  run again at the base ${baseline.base.commit.slice(0, 8)}: ${passing(baseline.base.results)} (a check that passes there, the change broke)`,
      );
    out.push('');
  }
  for (const r of [...report.rounds].sort((a, b) => a.round - b.round)) {
    out.push(`Round ${r.round} — reviewing ${r.head.slice(0, 8)}`);
    for (const v of reviewerVerdicts(report.verdicts).filter((x) => x.round === r.round)) {
      out.push(`  ${v.reviewer}: ${v.reply.verdict}`);
      for (const f of report.findings.filter((x) => x.round === r.round && x.reviewer === v.reviewer)) {
        out.push(`    ${f.reported.severity} ${f.reported.file}:${f.reported.line} ${f.reported.claim}`);
        out.push(`      -> ${fate(f)}`);
      }
    }
    for (const f of report.findings.filter(
      (x) => x.round === r.round && x.reviewer === CONTROLLER_REVIEWER,
    )) {
      out.push(`  ${CONTROLLER_REVIEWER}: ${f.reported.severity} ${f.reported.claim}`);
      out.push(`      -> ${fate(f)}`);
    }
    const d = stage(r.round, 'decide');
    if (d) {
      if (d.evidence) {
        const e = d.evidence;
        const why = [
          e.checksNowPassing.length ? `check now passing: ${e.checksNowPassing.join(', ')}` : '',
          e.fixed.length
            ? `${e.fixed.length} blocker(s) fixed with evidence (lines changed, not raised again)`
            : '',
          e.settled.length ? `${e.settled.length} dispute(s) settled` : '',
          e.shrank ? 'the diff shrank' : '',
        ].filter(Boolean);
        out.push(
          `  progress since round ${r.round - 1}: ${e.progress ? why.join('; ') : 'none (a reworded or lowered re-raise is not progress)'}`,
        );
      }
      out.push(
        `  decision: ${d.decision.kind === 'fix' ? `fix ${d.decision.blockers.length} blocker(s)` : `stop: ${d.decision.outcome} (${d.decision.stopReason})`}`,
      );
    }
    const fx = stage(r.round, 'fix');
    if (fx)
      out.push(
        `  fixer: ${fx.commit ? `committed ${fx.commit.slice(0, 8)} on refs/revloop/runs/${report.run.id}` : 'changed nothing'}`,
      );
    const ck = stage(r.round, 'checks');
    if (ck) out.push(`  checks: ${passing(ck.results)}`);
    out.push('');
  }
  const run = report.run;
  out.push(
    `Result: ${run.status}${run.outcome ? ` / ${run.outcome}` : ''}${run.stopReason ? ` (stop reason: ${run.stopReason})` : ''}${run.reason ? ` (${run.reason})` : ''}, $${run.costUsd.toFixed(4)} spent of a $${run.snapshot.budgets.costUsd} budget`,
  );
  if (res.recordPath) out.push(`Signed record: ${res.recordPath}`);
  if (run.stopReason === 'no_progress')
    out.push(`Escalation report: ${res.dir}/.revloop/reports/${run.id}-escalation.md`);
  out.push('', 'As designed:');
  for (const c of res.checks) out.push(`  [${c.ok ? 'x' : ' '}] ${c.what}`);
  out.push(
    '',
    'Look further:',
    `  cd ${res.dir}`,
    `  ${cli} status ${run.id}`,
    `  ${cli} export ${run.id} --format markdown`,
    `  ${cli} replay ${run.id}`,
    `  ${cli} ui`,
    ...(res.recordPath && run.head !== run.snapshot.head
      ? [`  git checkout -q ${run.head.slice(0, 12)} && ${cli} verify ${res.recordPath}`]
      : []),
    '',
  );
  return out.join('\n');
}
