/** The demo's narration: what the loop did, round by round, and why. */
import type { FindingRow } from '../core/ledger.js';
import type { CheckResult } from '../core/progress.js';
import { reuseLine, reuseSummary } from '../core/reuse-summary.js';
import { CONTROLLER_REVIEWER } from '../core/run-report.js';
import { reproductionText } from '../core/samples.js';
import { reviewerVerdicts, stage as stageOf } from '../core/stage-results.js';
import type { Stage } from '../core/types.js';
import type { DemoResult, DemoRun, DemoScenario } from './run-demo.js';

const INTRO: Record<DemoScenario, string> = {
  default: `The change under review (branch feature/refunds) adds Wallet.credit(), which reads a balance,
awaits the audit log, then writes balance + amount: two concurrent credits lose one (a lost update
across an await). Three scripted reviewers look at it; a refuter checks each blocker; a fixer edits.
The check credits-add-up passes on main and fails on the change: the change broke it, so it blocks too.`,
  oscillation: `Same change, harder loop: the fixer's cure for the lost update (a module-level lock) trips the
standards reviewer's "no module-level state" rule, and each later "fix" only renames the lock.`,
  verdicts: `The change (branch feature/currencies) adds thirty small currency modules; review.chunkBytes is
small, so each file is its own chunk and its own call. It is reviewed twice: as pushed, and after a
one-line push to one file. Both reviewers declare reuse: prompt (they read nothing but their prompt);
second-look is sampled three times where its first sample raises a blocker, and a MODERATE must be
seen by two samples to block. correctness raises a plausible but wrong MAJOR in both runs (its chunk
is unchanged by the push); the refuter judges it once.`,
};

function fate(f: FindingRow, blockAt?: number): string {
  if (f.reviewer === CONTROLLER_REVIEWER)
    return "the controller's blocker: never the fixer's, it goes when the check passes again or a person accepts it";
  if (f.gate.kind === 'demoted' && f.gate.rule === 'no_scenario') {
    return `demoted to MINOR by gating: no concrete failure scenario and no criteria clause (invariant 9)`;
  }
  if (f.gate.kind === 'demoted' && f.gate.rule === 'scope_lock') {
    return `demoted to MINOR by the scope lock: ${f.reviewer} passed this line at ${f.gate.passedAt.slice(0, 8)} and said nothing about what it missed (invariant 11)`;
  }
  if (f.gate.kind === 'demoted' && f.gate.rule === 'unreproduced') {
    return `demoted to MINOR: ${reproductionText(f.gate)}, fewer than the ${blockAt ?? 'configured'} a MODERATE needs to block`;
  }
  if (f.refutation?.origin) return `answered from memory, the refuter was not called: ${f.refutation.reason}`;
  if (f.refutation?.decision === 'refuted') return `refuted by ${f.refutation.by}: ${f.refutation.reason}`;
  if (f.refutation?.decision === 'upheld') return `upheld by ${f.refutation.by}: blocks`;
  return f.severity === 'MINOR' ? 'MINOR: listed, does not block' : 'blocks';
}

const passing = (results: readonly CheckResult[]) =>
  results.map((c) => `${c.name} ${c.passed ? 'passes' : 'FAILS'}`).join(', ');

/** One run of a scenario of several: each reviewer's calls in one line, then its findings and their fate. */
function explainRun(n: number, { report, recordPath }: DemoRun): string[] {
  const out = [`Run ${n} (${report.run.id}) — reviewing ${report.run.head.slice(0, 8)}`];
  for (const r of [...report.rounds].sort((a, b) => a.round - b.round)) {
    const verdicts = reviewerVerdicts(report.verdicts).filter((x) => x.round === r.round);
    for (const name of [...new Set(verdicts.map((v) => v.reviewer))]) {
      const mine = verdicts.filter((v) => v.reviewer === name);
      const reused = mine.filter((v) => v.reusedFrom).length;
      const asked = report.attempts.filter(
        (a) => a.round === r.round && a.role === 'reviewer' && a.reviewer === name,
      ).length;
      const raised = mine.filter((v) => v.reply.verdict !== 'pass').length;
      const blockAt = report.run.snapshot.reviewers.find((x) => x.name === name)?.samples?.block;
      out.push(
        `  round ${r.round}, ${name}: ${mine.length} verdicts (${asked} asked, ${reused} reused at $0), ${raised} with findings`,
      );
      for (const f of report.findings.filter((x) => x.round === r.round && x.reviewer === name)) {
        const seen = f.reproduction ? ` [${reproductionText(f.reproduction)}]` : '';
        out.push(
          `    ${f.reported.severity} ${f.reported.file}:${f.reported.line} ${f.reported.claim}${seen}`,
        );
        out.push(`      -> ${fate(f, blockAt)}`);
      }
    }
  }
  const refuterCalls = report.attempts.filter((a) => a.role === 'refuter').length;
  out.push(`  refuter calls: ${refuterCalls}`);
  const reuse = reuseSummary(report.verdicts);
  if (reuse) out.push(`  ${reuseLine(reuse)}`);
  const run = report.run;
  out.push(
    `  result: ${run.status}${run.outcome ? ` / ${run.outcome}` : ''}, $${run.costUsd.toFixed(4)} spent`,
  );
  if (recordPath) out.push(`  signed record: ${recordPath}`);
  out.push('');
  return out;
}

export function explainDemo(scenario: DemoScenario, res: DemoResult, cli = 'revloop'): string {
  if (res.runs.length > 1) return explainRuns(scenario, res, cli);
  const { report } = res;
  const out: string[] = heading(scenario, res);
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

/** What every scenario's explanation opens with: its name, what it shows, where its repository is. */
const heading = (scenario: DemoScenario, res: DemoResult): string[] => [
  '',
  `revloop demo (${scenario})`,
  '',
  INTRO[scenario],
  '',
  `fixture repository: ${res.dir}`,
  '',
];

/** A scenario of several runs on one ledger: each run in turn, then the checks. */
function explainRuns(scenario: DemoScenario, res: DemoResult, cli: string): string {
  const out = heading(scenario, res);
  res.runs.forEach((r, i) => {
    if (i > 0)
      out.push(
        `Pushed ${r.report.run.head.slice(0, 8)} (a one-line edit) and reviewed the change again.`,
        '',
      );
    out.push(...explainRun(i + 1, r));
  });
  out.push('As designed:');
  for (const c of res.checks) out.push(`  [${c.ok ? 'x' : ' '}] ${c.what}`);
  const last = res.report.run.id;
  out.push(
    '',
    'Look further:',
    `  cd ${res.dir}`,
    `  ${cli} status ${last}`,
    `  ${cli} export ${last} --format markdown`,
    `  ${cli} ui`,
    '',
  );
  return out.join('\n');
}
