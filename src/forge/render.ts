/**
 * The text revloop writes to a forge. Every reviewer-written string passes
 * through `neutralise`; every body starts with its hidden marker.
 */
import { longestBacktickRun } from '../core/backtick-runs.js';
import { reproductionText } from '../core/samples.js';
import { coveragePhrase, ignoredDetails } from '../report/coverage-phrase.js';
import { clipOutsideFences, codeText, fenceFor, neutralise } from '../report/neutralise.js';
import { findingMarker, runMarker } from './markers.js';
import type { ForgeName, PriorSettlement, RecordCheck, RunView, Suggestion, ViewFinding } from './types.js';

/** GitHub refuses bodies over 65,536 characters; GitLab's notes allow 1,000,000. Stay under both. */
export const MAX_BODY = 60_000;

const short = (sha: string): string => sha.slice(0, 7);
const range = (f: Pick<ViewFinding, 'file' | 'line' | 'endLine'>): string =>
  `${f.file}:${f.line}${f.endLine !== f.line ? `-${f.endLine}` : ''}`;
/** An inline code span that no backtick in `s` can close. */
const code = (s: string): string => {
  const t = codeText(s).replace(/\n/g, ' ');
  const n = longestBacktickRun(t) + 1;
  const f = '`'.repeat(n);
  return n > 1 ? `${f} ${t} ${f}` : `${f}${t}${f}`;
};

function headline(f: ViewFinding): string {
  const seen = f.reproduction ? ` · ${reproductionText(f.reproduction)}` : '';
  return `**${f.severity}** · ${neutralise(f.reviewer, 100)} · ${code(range(f))}${seen}`;
}

function details(f: ViewFinding): string[] {
  const out = [neutralise(f.claim)];
  if (f.failureScenario) out.push('', `**Scenario:** ${neutralise(f.failureScenario)}`);
  if (f.violatedClause) out.push('', `**Violates:** ${neutralise(f.violatedClause, 500)}`);
  return out;
}

/** The inline comment of a finding that stands at `revision`. */
export function standingBody(
  f: ViewFinding,
  runId: string,
  revision: string,
  suggestion: Suggestion | null,
  forge: ForgeName,
): string {
  const lines = [
    findingMarker({ fingerprint: f.fingerprint, runId, revision }),
    headline(f),
    '',
    ...details(f),
  ];
  const footer = ['', `<sub>revloop run ${code(runId)} on ${code(short(revision))}</sub>`];
  if (suggestion) {
    const text = codeText(suggestion.text);
    const fence = fenceFor(text);
    const block = [
      '',
      'The fixer proposes:',
      '',
      `${fence}${suggestionInfo(forge, suggestion)}`,
      text,
      fence,
    ];
    // A suggestion is applied whole or not at all: one that does not fit is left out, and said so.
    const size = [...lines, ...block, ...footer].join('\n').length;
    if (size <= MAX_BODY) lines.push(...block);
    else
      lines.push(
        '',
        `The fixer's version of lines ${suggestion.line}-${suggestion.endLine} is too long for a suggestion here; see \`revloop export\`.`,
      );
  }
  lines.push(...footer);
  return clip(lines.join('\n'));
}

/**
 * The suggestion fence's info string. The comment sits on the range's last
 * line; GitHub's comment spans the range itself, while GitLab's `-N+0` counts
 * the lines above it that the suggestion replaces (a bare `suggestion` there
 * would replace the last line alone).
 */
function suggestionInfo(forge: ForgeName, s: Suggestion): string {
  return forge === 'gitlab' ? `suggestion:-${s.endLine - s.line}+0` : 'suggestion';
}

export type Settled =
  | { kind: 'fixed'; commit: string }
  | { kind: 'refuted'; by: string; reason: string }
  | { kind: 'overturned'; by: string; reason: string }
  | { kind: 'not_blocking'; why: string };

/** The edit of a comment whose finding no longer stands; the original claim stays readable. */
export function settledBody(
  f: Pick<ViewFinding, 'fingerprint'> & Partial<ViewFinding>,
  runId: string,
  revision: string,
  s: Settled,
  previous: string,
): string {
  const word =
    s.kind === 'fixed'
      ? `✅ **Fixed** in ${code(short(s.commit))}.`
      : s.kind === 'refuted'
        ? `➖ **Refuted** by ${neutralise(s.by, 100)}: ${neutralise(s.reason)}`
        : s.kind === 'overturned'
          ? `➖ **Dismissed** by ${neutralise(s.by, 100)}${s.reason ? `: ${neutralise(s.reason)}` : ''}`
          : `➖ **No longer blocking**: ${neutralise(s.why)}`;
  // The earlier text was ours (it starts with our marker); it is kept below the verdict, minus that marker.
  const earlier = previous
    .replace(/^<!-- revloop [^>]*-->\n?/, '')
    .replace(/<sub>revloop run[^\n]*<\/sub>\s*$/, '');
  const lines = [
    findingMarker({ fingerprint: f.fingerprint, runId, revision }),
    word,
    '',
    '<details><summary>The finding</summary>',
    '',
    earlier.trim(),
    '',
    '</details>',
    '',
    `<sub>revloop run ${code(runId)} on ${code(short(revision))}</sub>`,
  ];
  return clip(lines.join('\n'));
}

export interface SummaryInput {
  view: RunView;
  target: string;
  stale: boolean;
  record: RecordCheck | null;
  check: { conclusion: string; title: string };
  inline: ViewFinding[];
  offDiff: ViewFinding[];
  /** Standing findings a person dismissed on the forge (their thread resolved by a person). */
  dismissed: ViewFinding[];
  prior: { finding: ViewFinding; settled: PriorSettlement }[];
}

/** The review body (GitHub) or the summary note (GitLab): one per run. */
export function summaryBody(s: SummaryInput): string {
  const v = s.view;
  const verdict =
    v.status !== 'completed'
      ? `did not complete: ${v.status}${v.reason ? ` (${v.reason})` : ''}`
      : `completed: ${v.outcome}${v.stopReason ? ` (${v.stopReason})` : ''}`;
  const icon = s.check.conclusion === 'success' ? '✅' : s.check.conclusion === 'failure' ? '❌' : '⚠️';
  const targetFindings = v.findings.filter((f) => f.revision === s.target);
  const minor = targetFindings.filter((f) => f.because === 'minor');
  const notBlocking = targetFindings.filter((f) => f.because !== null && f.because !== 'minor');
  const lines = [
    runMarker({ runId: v.runId, revision: s.target }),
    `## ${icon} revloop: ${verdict}`,
    '',
    `**${neutralise(s.check.title, 300)}**`,
    '',
    '| | |',
    '|---|---|',
    `| run | ${code(v.runId)} on ${code(short(v.finalHead))}${v.finalHead !== s.target ? ` (this pull request's head is ${code(short(s.target))})` : ''} |`,
    `| rounds | ${v.rounds.filter((r) => r.round > 0).length} |`,
    `| coverage | ${v.calls.answered} of ${v.calls.expected} reviewer calls answered (${v.reviewers.map((r) => neutralise(r, 100)).join(', ')}) |`,
    ...(v.files
      ? [`| files | ${coveragePhrase(v.files)}${v.files.ignored.length > 0 ? ' (listed below)' : ''} |`]
      : []),
    `| cost | $${v.costUsd.toFixed(2)} of $${v.costBudgetUsd.toFixed(2)} |`,
    ...(v.reused ? [`| reused | ${neutralise(v.reused, 300)} |`] : []),
    `| record | ${s.record ? (s.record.ok ? `verified (${neutralise(s.record.reason, 300)})` : `refused: ${s.record.code}: ${neutralise(s.record.reason, 300)}`) : 'not checked: it does not cover this head'} |`,
    '',
  ];
  if (v.detail) lines.push(`> ${neutralise(v.detail.split('\n')[0] ?? '', 500)}`, '');
  if (s.stale)
    lines.push(
      'This review is **stale**: the pull request moved past the reviewed revision; no inline comment was posted.',
      '',
    );
  if (s.inline.length) lines.push(`${s.inline.length} blocker(s) inline below.`, '');
  const list = (title: string, fs: ViewFinding[], extra: (f: ViewFinding) => string = () => '') => {
    if (!fs.length) return;
    lines.push(`### ${title} (${fs.length})`, '');
    for (const f of fs) lines.push(`- ${headline(f)}: ${neutralise(f.claim, 500)}${extra(f)}`);
    lines.push('');
  };
  list('Blockers not on the diff', s.offDiff);
  list('Minor', minor);
  const collapsed = (title: string, entries: string[]) => {
    if (!entries.length) return;
    lines.push(
      `<details><summary>${title} (${entries.length})</summary>`,
      '',
      ...entries,
      '',
      '</details>',
      '',
    );
  };
  lines.push(...ignoredDetails(v.files?.ignored ?? [], code));
  collapsed(
    'Refuted and demoted',
    notBlocking.map(
      (f) => `- ${headline(f)}: ${neutralise(f.claim, 500)} — _${neutralise(f.why ?? '', 500)}_`,
    ),
  );
  collapsed(
    'Settled earlier on this change',
    s.prior.map(
      ({ finding: f, settled: p }) =>
        `- ${headline(f)}: ${neutralise(f.claim, 500)} — _${p.kind} by ${neutralise(p.by, 100)}${p.reason ? `: ${neutralise(p.reason, 500)}` : ''}_ (run ${code(p.runId)})`,
    ),
  );
  collapsed(
    'Dismissed on this pull request',
    s.dismissed.map((f) => `- ${headline(f)}: ${neutralise(f.claim, 500)}`),
  );
  return clip(lines.join('\n'));
}

function clip(body: string): string {
  return clipOutsideFences(body, MAX_BODY, '… (truncated; see revloop export)');
}
