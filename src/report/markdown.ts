/**
 * A Markdown summary of a run for a CI job summary or a PR comment. Model
 * text is escaped so a claim cannot inject markup, and the output is kept
 * under a byte limit (GitHub's job summary takes at most 1 MiB), dropping
 * findings with a note rather than being cut mid-line by the host.
 */
import { coverageSummary } from '../core/coverage.js';
import type { FindingRow } from '../core/ledger.js';
import { reuseLine, reuseSummary } from '../core/reuse-summary.js';
import { isBlocker, type RunReport, rerunPhrase, roundLog } from '../core/run-report.js';
import { reproductionText } from '../core/samples.js';
import { finalCoverage } from '../core/stage-results.js';
import { coveragePhrase, ignoredDetails } from './coverage-phrase.js';
import {
  finalFindings,
  lineRange,
  SEVERITY_ORDER,
  settleCommand,
  verdictPhrase,
  whyNotBlocking,
} from './findings.js';
import { missingPhrase, missingVerdicts } from './missing-verdicts.js';
import { inertMentions } from './neutralise.js';

/** Just under 1 MiB, leaving room for what a CI step appends. */
export const MARKDOWN_MAX_BYTES = 1_000_000;

export interface MarkdownOptions {
  /** Byte limit (default MARKDOWN_MAX_BYTES; use 65_000 for a PR comment). */
  maxBytes?: number;
  /** Heading text (default "revloop review"). */
  title?: string;
}

/** Escapes Markdown and HTML in model text, makes its mentions inert and folds it to one line. */
export function mdText(s: string): string {
  return inertMentions(
    s
      .replace(/\r?\n|\r/g, ' ')
      .replace(/[\\`*_{}[\]()<>#+!|~&]/g, (c) =>
        c === '<' ? '&lt;' : c === '>' ? '&gt;' : c === '&' ? '&amp;' : `\\${c}`,
      ),
  );
}

/** Inline code on one line: a backtick cannot close it, a line break in a path cannot end the item. */
const code = (s: string): string => `\`${s.replace(/`/g, "'").replace(/\r?\n|\r/g, ' ')}\``;

export function toMarkdown(report: RunReport, opts: MarkdownOptions = {}): string {
  const maxBytes = opts.maxBytes ?? MARKDOWN_MAX_BYTES;
  const run = report.run;
  const snap = run.snapshot;
  const icon = run.status !== 'completed' ? '⚠️' : run.outcome === 'clear' ? '✅' : '❌';
  const head: string[] = [
    `## ${icon} ${opts.title ?? 'revloop review'}: ${verdictPhrase(report)}`,
    '',
    '| | |',
    '|---|---|',
    `| run | ${code(run.id)} |`,
    `| change | ${mdText(snap.change)} |`,
    ...(run.rerun ? [`| rerun | ${mdText(rerunPhrase(run.rerun))} |`] : []),
    ...reusedRow(report),
    `| status | ${run.status}${run.reason ? ` (${run.reason})` : ''} |`,
    `| outcome | ${run.outcome ?? '—'} |`,
    `| stop reason | ${run.stopReason ?? '—'} |`,
    `| head | ${code(run.head.slice(0, 12))} (base ${code(snap.base.slice(0, 12))}) |`,
    `| criteria | ${mdText(snap.criteriaPath)} ${code(snap.criteriaDigest.slice(0, 12))} |`,
    `| reviewers | ${snap.reviewers.map((r) => mdText(r.model ? `${r.name} (${r.model})` : r.name)).join(', ')} |`,
    `| cost | $${run.costUsd.toFixed(2)} of $${snap.budgets.costUsd.toFixed(2)} |`,
  ];
  const files = coverageSummary(finalCoverage(report.stages));
  if (files) head.push(`| files | ${coveragePhrase(files)} |`);
  head.push('');
  head.push(...ignoredDetails(files?.ignored ?? [], code));
  if (run.detail) head.push(`> ${mdText(run.detail)}`, '');

  const log = roundLog(report);
  const missing = missingVerdicts(report);
  if (log.rounds.length) {
    head.push('### Rounds', '', '| round | revision | blocking | findings |', '|---:|---|---:|---:|');
    for (const r of log.rounds) {
      // Invariant 18: a round with a call that gave no verdict is not "0 blocking".
      const gaps = missing.filter((m) => m.round === r.round).map((m) => mdText(m.reviewer));
      const blocking = gaps.length ? `${r.blocking}, no verdict from ${gaps.join(', ')}` : `${r.blocking}`;
      head.push(`| ${r.round} | ${code(r.head.slice(0, 7))} | ${blocking} | ${r.findings.length} |`);
    }
    head.push('');
  }
  if (missing.length) {
    head.push(`### Missing results (${missing.length})`, '');
    for (const m of missing) head.push(`- ${mdText(missingPhrase(m))}`);
    head.push('', 'A call with no verdict is not a pass (invariant 1).', '');
  }
  if (run.stopReason === 'no_progress') head.push(...escalation(report), '');

  const body: string[] = [];
  const final = finalFindings(report);
  const blockers = final.filter(isBlocker);
  const others = final.filter((f) => !isBlocker(f));
  body.push(`### Blockers (${blockers.length})`, '');
  if (!blockers.length)
    body.push(
      run.status === 'completed' && !missing.length
        ? 'None.'
        : 'The review did not complete: no blocker was found before it stopped, which is not a pass.',
      '',
    );
  for (const sev of SEVERITY_ORDER) {
    const group = blockers.filter((f) => f.severity === sev);
    if (!group.length) continue;
    body.push(`#### ${sev} (${group.length})`, '');
    for (const f of group) body.push(findingLine(f));
    body.push('');
  }
  if (others.length) {
    body.push(`### Not blocking (${others.length})`, '');
    for (const f of others) body.push(`${findingLine(f)} — _${mdText(whyNotBlocking(f) ?? '')}_`);
    body.push('');
  }

  return fitBytes([...head], body, maxBytes);
}

function findingLine(f: FindingRow): string {
  const parts = [
    `- **${f.severity}** ${code(lineRange(f))} ${mdText(f.reported.claim)} (${mdText(f.reviewer)})`,
  ];
  if (f.reported.failureScenario) parts.push(`  - scenario: ${mdText(f.reported.failureScenario)}`);
  if (f.reported.violatedClause) parts.push(`  - violates: ${mdText(f.reported.violatedClause)}`);
  if (f.reproduction) parts.push(`  - ${reproductionText(f.reproduction)}`);
  if (f.refutation?.decision === 'upheld')
    parts.push(`  - upheld by ${mdText(f.refutation.by)}: ${mdText(f.refutation.reason)}`);
  if (f.dispute) parts.push(`  - disputed by the fixer: ${mdText(f.dispute.reason)}`);
  if (f.settlement?.decision === 'upheld') parts.push(`  - upheld by ${mdText(f.settlement.by)}`);
  const settle = settleCommand(f);
  if (settle) parts.push(`  - needs a person: ${code(settle)}`);
  return parts.join('\n');
}

/** Invariant 8: the evidence a person needs when the loop stopped without progress. */
function escalation(report: RunReport): string[] {
  const log = roundLog(report);
  const counts = log.rounds.map((r) => r.blocking).join(' → ');
  const out = [
    '### Escalation: no progress',
    '',
    `The last ${report.run.snapshot.policy.stopWindow} rounds made no progress (blocking per round: ${counts}). A person should settle the remaining blockers with \`revloop settle\`.`,
    '',
  ];
  const persistent = new Map<string, number>();
  for (const r of log.rounds)
    for (const f of r.findings.filter((x) => x.blocking)) {
      const k = `${f.reviewer}\u0000${f.file}\u0000${f.claim}`;
      persistent.set(k, (persistent.get(k) ?? 0) + 1);
    }
  const repeated = [...persistent].filter(([, n]) => n > 1);
  if (repeated.length) {
    out.push('Raised again in several rounds:', '');
    for (const [k, n] of repeated) {
      const [reviewer = '', file = '', claim = ''] = k.split('\u0000');
      out.push(`- ${code(file)} ${mdText(claim)} (${mdText(reviewer)}, ${n} rounds)`);
    }
  }
  const disputed = report.findings.filter((f) => f.dispute && !f.settlement);
  if (disputed.length) {
    out.push('', 'Disputed by the fixer, awaiting a person:', '');
    for (const f of disputed)
      out.push(`- ${code(f.id)} ${mdText(f.reported.claim)}: ${mdText(f.dispute?.reason ?? '')}`);
  }
  return out;
}

/** Appends body lines while they fit; the rest is replaced by a note. */
function fitBytes(head: string[], body: string[], maxBytes: number): string {
  const size = (s: string) => Buffer.byteLength(s, 'utf8') + 1;
  const reserve = 300;
  let used = head.reduce((n, l) => n + size(l), 0);
  const out = [...head];
  if (used + reserve > maxBytes) {
    out.length = 0;
    used = 0;
    for (const l of head) {
      if (used + size(l) + reserve > maxBytes) break;
      out.push(l);
      used += size(l);
    }
  }
  let dropped = 0;
  for (const l of body) {
    if (dropped === 0 && used + size(l) + reserve <= maxBytes) {
      out.push(l);
      used += size(l);
    } else if (l.startsWith('- ')) dropped++;
  }
  if (dropped || out.length < head.length + body.length)
    out.push(
      '',
      `> Truncated to stay under ${maxBytes} bytes: ${dropped} more finding(s) not shown; see \`revloop export --format sarif\`.`,
    );
  return `${out.join('\n')}\n`;
}

/** The row saying how many verdicts were reused from identical earlier calls, when any was. */
function reusedRow(report: RunReport): string[] {
  const s = reuseSummary(report.verdicts);
  return s ? [`| reused | ${mdText(reuseLine(s))} |`] : [];
}
