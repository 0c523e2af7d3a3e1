/** One run as a timeline of rounds; refreshed every 2 s while the run is active. */
import type { CheckResult } from '../../core/progress.js';
import type {
  CoverageView,
  DiffView,
  RoundView,
  RunDetail,
  RunServiceView,
  VerdictView,
  VerifyView,
} from '../view-types.js';
import {
  age,
  badge,
  cost,
  errorBox,
  getJson,
  h,
  mount,
  outcomeBadge,
  replace,
  short,
  statusBadge,
  table,
  when,
} from './dom.js';
import { findingsTable } from './findings-table.js';
import { deliveriesTable, prName } from './service-parts.js';

const app = mount();
const runId = decodeURIComponent(location.pathname.replace(/^\/runs\//, ''));
const api = `/api/runs/${encodeURIComponent(runId)}`;

function checksTable(results: CheckResult[]): HTMLElement {
  return table(
    { class: 'checks' },
    ['Check', 'Result', h('th', { class: 'num' }, 'Exit'), h('th', { class: 'num' }, 'Time'), 'Output tail'],
    results.map((c) =>
      h(
        'tr',
        {},
        h('td', {}, c.name),
        h('td', {}, badge(c.passed ? 'passed' : 'failed', c.passed ? 'ok' : 'bad')),
        h('td', { class: 'num' }, c.exitCode ?? '—'),
        h('td', { class: 'num' }, `${(c.durationMs / 1000).toFixed(2)} s`),
        h(
          'td',
          {},
          c.tail.trim()
            ? h('details', {}, h('summary', {}, 'show'), h('pre', { class: 'tail' }, c.tail))
            : h('span', { class: 'muted' }, 'no output'),
        ),
      ),
    ),
  );
}

function diffBlock(text: string): HTMLElement {
  const pre = h('pre', { class: 'diff' });
  for (const line of text.split('\n')) {
    const cls =
      line.startsWith('+++') ||
      line.startsWith('---') ||
      line.startsWith('diff ') ||
      line.startsWith('index ')
        ? 'meta'
        : line.startsWith('+')
          ? 'add'
          : line.startsWith('-')
            ? 'del'
            : line.startsWith('@@')
              ? 'hunk'
              : '';
    pre.appendChild(cls ? h('span', { class: cls }, line) : document.createTextNode(`${line}\n`));
  }
  return pre;
}

function fixSection(r: RoundView): HTMLElement | null {
  const fix = r.fix;
  if (!fix) return null;
  const body = h('div', { class: 'diff-host' });
  let loaded = false;
  const toggle = async (e: Event) => {
    if (loaded || !(e.target as HTMLDetailsElement).open) return;
    loaded = true;
    replace(body, h('p', { class: 'muted' }, 'Loading diff…'));
    try {
      const d = await getJson<DiffView>(`${api}/rounds/${r.round}/diff`);
      replace(
        body,
        d.truncated ? h('p', { class: 'muted' }, 'The diff is too large to show here.') : diffBlock(d.text),
      );
    } catch (err) {
      replace(body, errorBox(err));
    }
  };
  return h(
    'div',
    { class: 'fix' },
    h('h3', {}, 'Fix'),
    fix.commit
      ? h('p', {}, 'Commit ', h('code', {}, short(fix.commit)), ' on ', h('code', {}, short(fix.from)))
      : h('p', { class: 'muted' }, 'The fixer changed nothing.'),
    fix.disputes.length
      ? h(
          'ul',
          {},
          fix.disputes.map((d) =>
            h('li', {}, 'Disputed ', h('code', {}, d.findingId.slice(0, 12)), ': ', d.reason),
          ),
        )
      : null,
    fix.unknownIds.length
      ? h('p', { class: 'small muted' }, `Unknown ids named by the fixer: ${fix.unknownIds.join(', ')}`)
      : null,
    fix.commit ? h('details', { ontoggle: toggle }, h('summary', {}, 'Show the fix diff'), body) : null,
  );
}

function decisionSection(r: RoundView): HTMLElement | null {
  const d = r.decide;
  if (!d) return null;
  const ev = d.evidence;
  const evidence = ev
    ? [
        ev.checksNowPassing.length ? `checks now passing: ${ev.checksNowPassing.join(', ')}` : '',
        ev.fixed.length ? `fixed with evidence: ${ev.fixed.map((x) => x.slice(0, 10)).join(', ')}` : '',
        ev.settled.length ? `settled: ${ev.settled.map((x) => x.slice(0, 10)).join(', ')}` : '',
        ev.shrank ? 'the diff shrank' : '',
      ].filter(Boolean)
    : [];
  const decision =
    d.decision.kind === 'fix'
      ? h('span', {}, badge('fix'), ` ${d.decision.blockers.length} blocker(s) go to the fixer`)
      : h(
          'span',
          {},
          badge(`stop: ${d.decision.stopReason}`, d.decision.outcome === 'clear' ? 'ok' : 'bad'),
          ` outcome ${d.decision.outcome}`,
        );
  return h(
    'dl',
    { class: 'kv decision' },
    h('dt', {}, 'Open blockers'),
    h('dd', {}, String(d.blocking)),
    h('dt', {}, 'Progress'),
    h(
      'dd',
      {},
      ev === null
        ? h('span', { class: 'muted' }, 'baseline round (counts as progress)')
        : h(
            'span',
            {},
            badge(ev.progress ? 'yes' : 'no', ev.progress ? 'ok' : 'bad'),
            ' ',
            evidence.length ? evidence.join('; ') : 'no evidence',
          ),
    ),
    h('dt', {}, 'Decision'),
    h('dd', {}, decision),
  );
}

/** A chunked review's parts, as the verdict chip says them. */
function partsText(p: NonNullable<VerdictView['parts']>): string {
  const parts = `${p.count} part${p.count === 1 ? '' : 's'}`;
  return p.withFindings > 0 ? `findings in ${p.withFindings} of ${parts}` : parts;
}

/** What the review covered: per reviewer the files it was shown, the files left out and why. */
function coverageSection(c: CoverageView): HTMLElement {
  const files = (n: number) => `${n} file${n === 1 ? '' : 's'}`;
  return h(
    'dl',
    { class: 'kv coverage' },
    h('dt', {}, 'Coverage'),
    h(
      'dd',
      {},
      c.reviewers.map((x, i) => {
        const full = x.reviewed === c.kept;
        return h(
          'span',
          { 'data-reviewer': x.reviewer },
          i > 0 ? ' · ' : '',
          `${x.reviewer} ${x.reviewed} of ${files(c.kept)} `,
          badge(full ? 'complete' : 'incomplete', full ? 'ok' : 'bad'),
          x.missing.length > 0
            ? h('span', { class: 'muted small' }, ` not reviewed: ${x.missing.join(', ')}`)
            : null,
        );
      }),
    ),
    c.ignored.length > 0
      ? [
          h('dt', {}, 'Ignored'),
          h(
            'dd',
            {},
            h(
              'details',
              {},
              h('summary', {}, `${files(c.ignored.length)} left out by the config's ignore rules`),
              h(
                'ul',
                { class: 'small mono' },
                c.ignored.map((i) => h('li', {}, i.path, h('span', { class: 'muted' }, ` (${i.rule})`))),
              ),
            ),
          ),
        ]
      : null,
    c.dropped.length > 0
      ? [
          h('dt', {}, 'Dropped'),
          h(
            'dd',
            {},
            h(
              'details',
              {},
              h(
                'summary',
                {},
                `${c.dropped.length} finding${c.dropped.length === 1 ? '' : 's'} on ignored paths`,
              ),
              h(
                'ul',
                { class: 'small mono' },
                c.dropped.map((d) =>
                  h('li', {}, `${d.reviewer}: ${d.file}`, h('span', { class: 'muted' }, ` (${d.rule})`)),
                ),
              ),
            ),
          ),
        ]
      : null,
  );
}

/** The pull request a run answers, as its findings' settlements and the service card name it. */
const pullRequestOf = (s: RunServiceView | null | undefined): string | null =>
  s?.trigger ? prName(s.trigger.forge, s.trigger.repository, s.trigger.pr) : null;

/** What the service did for the run: the pull request it answers, and the deliveries that admitted it. */
function serviceCard(d: RunDetail): HTMLElement | null {
  const s = d.service;
  if (!s || (!s.trigger && s.deliveries.length === 0)) return null;
  const t = s.trigger;
  return h(
    'div',
    { class: 'card', id: 'service' },
    h('h3', { class: 'flush' }, 'Service'),
    t
      ? h(
          'dl',
          { class: 'kv' },
          h('dt', {}, 'Pull request'),
          h(
            'dd',
            {},
            h(
              'a',
              { href: `/service?pr=${encodeURIComponent(prName(t.forge, t.repository, t.pr))}`, class: 'pr' },
              prName(t.forge, t.repository, t.pr),
            ),
            ` on ${t.forge}`,
          ),
          h('dt', {}, 'Published'),
          h(
            'dd',
            { class: 'published' },
            t.publishedAt ? `${when(t.publishedAt)}` : 'not yet',
            t.detail ? h('span', { class: 'small muted' }, ` ${t.detail}`) : null,
          ),
        )
      : null,
    s.deliveries.length > 0
      ? [
          h('p', { class: 'small muted' }, 'Deliveries that admitted this run:'),
          deliveriesTable('run-deliveries', s.deliveries, d.now),
        ]
      : null,
  );
}

function roundSection(r: RoundView, reload: () => void, pullRequest: string | null): HTMLElement {
  return h(
    'section',
    { class: 'round', 'data-round': r.round },
    h(
      'h2',
      {},
      `Round ${r.round} `,
      h('span', { class: 'muted mono small' }, `reviewing ${short(r.head)} · ${when(r.startedAt)}`),
    ),
    r.verdicts
      ? h(
          'div',
          { class: 'verdicts' },
          r.verdicts.map((v) =>
            h(
              'span',
              { class: 'chip', 'data-reviewer': v.reviewer },
              v.reviewer,
              ': ',
              badge(v.verdict, v.verdict === 'pass' ? 'ok' : 'bad'),
              v.modelId ? h('span', { class: 'muted small' }, ` ${v.modelId}`) : null,
              v.parts ? h('span', { class: 'muted small' }, ` · ${partsText(v.parts)}`) : null,
              v.samples ? h('span', { class: 'muted small' }, ` · ${v.samples} samples`) : null,
            ),
          ),
        )
      : h('p', { class: 'muted' }, 'Review in progress…'),
    r.coverage ? coverageSection(r.coverage) : null,
    findingsTable(r.findings, reload, pullRequest),
    r.refuter ? null : h('p', { class: 'small muted' }, 'No refuter configured.'),
    decisionSection(r),
    fixSection(r),
    r.checks ? h('div', {}, h('h3', {}, 'Checks after the fix'), checksTable(r.checks)) : null,
    r.troubles.length
      ? h(
          'div',
          {},
          h('h3', {}, 'Calls that did not end ok'),
          h(
            'ul',
            { class: 'small' },
            r.troubles.map((t) =>
              h(
                'li',
                {},
                `${t.stage} ${t.reviewer} attempt ${t.attemptNo}: `,
                badge(t.class, 'bad'),
                t.detail ? ` ${t.detail}` : '',
              ),
            ),
          ),
        )
      : null,
  );
}

function header(d: RunDetail): HTMLElement {
  const r = d.run;
  return h(
    'div',
    { class: 'card' },
    h(
      'div',
      { class: 'row' },
      h('h1', {}, `Run ${r.id}`),
      statusBadge(r.status),
      outcomeBadge(r.outcome),
      r.stopReason ? badge(`stop: ${r.stopReason}`) : null,
    ),
    h(
      'dl',
      { class: 'kv' },
      h('dt', {}, 'Change'),
      h('dd', {}, r.change),
      h('dt', {}, 'Revision'),
      h(
        'dd',
        { class: 'mono' },
        `${short(r.base)}..${short(r.snapshotHead)}`,
        r.head !== r.snapshotHead ? ` → ${short(r.head)} after fixes` : '',
      ),
      h('dt', {}, 'Reviewers'),
      h('dd', {}, r.reviewers.join(', '), ` · refuter ${r.refuter ?? 'none'} · fixer ${r.fixer ?? 'none'}`),
      h('dt', {}, 'Checks'),
      h('dd', {}, r.checkNames.length ? r.checkNames.join(', ') : 'none'),
      h('dt', {}, 'Rounds'),
      h(
        'dd',
        {},
        `${r.rounds} of ${r.budgets.rounds} · cost ${cost(r.costUsd)} of ${cost(r.budgets.costUsd)}`,
      ),
      h('dt', {}, 'Policy'),
      h(
        'dd',
        {},
        `scenario required ${r.policy.requireScenario ? 'yes' : 'no'} · scope lock ${r.policy.scopeLock ? 'yes' : 'no'} · stop window ${r.policy.stopWindow} · config from ${r.configFrom}`,
      ),
      h('dt', {}, 'Started'),
      h(
        'dd',
        {},
        `${when(r.createdAt)} (${age(d.now - r.createdAt)} ago)`,
        r.endedAt ? ` · ended after ${age(r.endedAt - r.createdAt)}` : '',
      ),
      r.reason
        ? [h('dt', {}, 'Ended because'), h('dd', {}, badge(r.reason, 'bad'), r.detail ? ` ${r.detail}` : '')]
        : null,
    ),
  );
}

function recordCard(d: RunDetail): HTMLElement {
  const out = h('dd', { id: 'verify' }, d.run.recordPath ? 'checking…' : '—');
  if (d.run.recordPath) {
    getJson<VerifyView>(`${api}/verify`).then(
      (v) =>
        replace(
          out,
          badge(v.ok ? 'verifies' : `does not verify: ${v.code}`, v.ok ? 'ok' : 'bad'),
          ' ',
          h('span', { class: 'small' }, v.reason),
          h(
            'div',
            { class: 'small muted' },
            'Checked against the repository’s current checkout, as `revloop verify` would.',
          ),
        ),
      (err: unknown) => replace(out, errorBox(err)),
    );
  }
  return h(
    'div',
    { class: 'card' },
    h('h3', { class: 'flush' }, 'Record'),
    h(
      'dl',
      { class: 'kv' },
      h('dt', {}, 'File'),
      h('dd', { class: 'mono small' }, d.run.recordPath ?? 'none written'),
      h('dt', {}, 'Verify'),
      out,
    ),
  );
}

const ESCALATION_TEXT: Record<string, string> = {
  no_progress:
    'The stop rule ended the loop: two consecutive rounds brought no evidence of progress. A person should look at the open blockers.',
  awaiting_settlement: 'Open blockers wait for a named person’s settlement.',
  upheld:
    'A named person upheld a blocker on a protected path: nobody is waited for; the author must change that edit.',
};

function escalationCard(d: RunDetail): HTMLElement | null {
  const e = d.escalation;
  if (!e) return null;
  return h(
    'div',
    { class: 'card', id: 'escalation' },
    h('h3', {}, 'Escalation'),
    h(
      'p',
      {},
      ESCALATION_TEXT[d.run.stopReason ?? ''] ?? 'Open blockers wait for a named person’s settlement.',
    ),
    h('p', {}, `Blocking counts by round: ${e.blockingCounts.join(' → ') || '—'}`),
    e.openBlockers.length
      ? h(
          'p',
          { class: 'small' },
          'Open: ',
          e.openBlockers.map((id) => h('code', {}, `${id.slice(0, 12)} `)),
        )
      : null,
  );
}

let last = '';
let timer: number | undefined;
async function load(force = false): Promise<void> {
  clearTimeout(timer);
  try {
    const d = await getJson<RunDetail>(api);
    const shape = JSON.stringify({ ...d, now: 0 });
    if (force || shape !== last) {
      last = shape;
      document.title = `Run ${d.run.id.slice(0, 12)} · revloop`;
      replace(
        app,
        h('p', { class: 'small' }, h('a', { href: '/' }, '← all runs')),
        header(d),
        serviceCard(d),
        escalationCard(d),
        recordCard(d),
        d.baselineChecks
          ? h(
              'section',
              { class: 'round', 'data-round': 0 },
              h('h2', {}, 'Round 0 ', h('span', { class: 'muted small' }, 'baseline checks')),
              checksTable(d.baselineChecks),
              d.baseChecks
                ? h(
                    'p',
                    { class: 'muted small base-checks' },
                    `The failing checks again at the base ${d.baseChecks.commit.slice(0, 12)}: one that passes there, the change broke.`,
                  )
                : null,
              d.baseChecks ? checksTable(d.baseChecks.results) : null,
            )
          : null,
        d.rounds.length
          ? d.rounds.map((r) => roundSection(r, () => void load(true), pullRequestOf(d.service)))
          : h('p', { class: 'muted' }, 'No round has started yet.'),
      );
    }
    if (d.run.active) timer = window.setTimeout(() => void load(), 2000);
  } catch (err) {
    replace(app, errorBox(err));
  }
}
void load();
