/** One round's findings as a table: severity, reviewer, place, claim, gating, refutation, settlement. */
import type { FindingView } from '../view-types.js';
import { badge, h, severityBadge, short, table, token } from './dom.js';
import { forgeIdentity } from './service-parts.js';

function gateText(f: FindingView): HTMLElement | string {
  const g = f.gate;
  if (g.kind === 'kept') return 'kept';
  if (g.rule === 'no_scenario') return h('span', {}, badge('demoted'), ' no scenario or clause (U1)');
  if (g.rule === 'unreproduced')
    return h('span', {}, badge('demoted'), ` seen in ${g.seen} of ${g.of} samples`);
  return h('span', {}, badge('demoted'), ` scope lock: passed at ${short(g.passedAt)} (U3)`);
}

function refutationText(f: FindingView): HTMLElement | string {
  const r = f.refutation;
  if (!r) return '—';
  return h(
    'div',
    {},
    badge(r.decision, r.decision === 'upheld' ? 'bad' : 'ok'),
    ' by ',
    h('span', { class: 'mono small' }, r.by),
    h('div', { class: 'note' }, r.reason),
  );
}

function standing(f: FindingView): HTMLElement {
  if (f.blocking) return badge('blocking', 'bad');
  return h('span', { class: 'muted small' }, `not blocking (${f.because ?? '—'})`);
}

/** Whether a person's settlement means something here: a blocker-grade finding nobody settled yet. */
const settleable = (f: FindingView): boolean =>
  f.settlement === null && (f.reported.severity !== 'MINOR' || f.dispute !== null);

function settleForm(f: FindingView, onSettled: () => void): HTMLElement {
  const name = h('input', {
    type: 'text',
    name: 'by',
    placeholder: 'your name',
    required: true,
    autocomplete: 'name',
  }) as HTMLInputElement;
  const decision = h(
    'select',
    { name: 'decision' },
    h('option', { value: 'upheld' }, 'upheld: it stands'),
    h('option', { value: 'overturned' }, 'overturned: it does not'),
  ) as HTMLSelectElement;
  const note = h('input', { type: 'text', name: 'note', placeholder: 'why (optional)' }) as HTMLInputElement;
  const msg = h('span', { class: 'msg' });
  const form = h(
    'form',
    {
      class: 'settle-form',
      'data-finding': f.id,
      onsubmit: async (e) => {
        e.preventDefault();
        msg.textContent = 'saving…';
        const res = await fetch(`/api/findings/${encodeURIComponent(f.id)}/settle`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-revloop-token': token() },
          body: JSON.stringify({ by: name.value, decision: decision.value, note: note.value }),
        });
        const body = (await res.json().catch(() => ({}))) as { error?: string };
        if (!res.ok) {
          msg.className = 'msg error';
          msg.textContent = body.error ?? `HTTP ${res.status}`;
          return;
        }
        onSettled();
      },
    },
    name,
    decision,
    note,
    h('button', { type: 'submit', class: 'primary' }, 'Settle'),
    msg,
  );
  return h('details', { class: 'settle' }, h('summary', {}, 'Settle…'), form);
}

/**
 * A settlement's person: a forge identity is someone who settled with a comment
 * command on the pull request (`pullRequest` names it when the run has one).
 */
function settledBy(by: string, pullRequest: string | null): (HTMLElement | string)[] {
  const who = forgeIdentity(by);
  if (!who) return [' by ', by];
  return [
    ' by ',
    h('span', { class: 'mono' }, by),
    ' ',
    h(
      'span',
      { class: 'from-pr' },
      badge('from the pull request'),
      pullRequest ? ` ${pullRequest}` : ` (a ${who.forge} comment command)`,
    ),
  ];
}

export function findingsTable(
  findings: FindingView[],
  onSettled: () => void,
  pullRequest: string | null = null,
): HTMLElement {
  if (findings.length === 0) return h('p', { class: 'muted' }, 'No findings.');
  return table(
    { class: 'findings' },
    ['Severity', 'Reviewer', 'Where', 'Finding', 'Gating', 'Refutation', 'Standing'],
    findings.map((f) => {
      const r = f.reported;
      const sev =
        f.severity === r.severity
          ? severityBadge(f.severity)
          : h(
              'span',
              {},
              h('span', { class: 'strike' }, severityBadge(r.severity)),
              ' → ',
              severityBadge(f.severity),
            );
      return h(
        'tr',
        { 'data-finding': f.id },
        h('td', {}, sev),
        h('td', {}, f.reviewer),
        h(
          'td',
          { class: 'mono small' },
          `${r.file}:${r.line}${r.endLine && r.endLine !== r.line ? `-${r.endLine}` : ''}`,
        ),
        h(
          'td',
          {},
          h('div', { class: 'finding-claim' }, r.claim),
          r.failureScenario ? h('div', { class: 'finding-extra' }, 'Scenario: ', r.failureScenario) : null,
          r.violatedClause ? h('div', { class: 'finding-extra' }, 'Clause: ', r.violatedClause) : null,
          f.reproduction
            ? h(
                'div',
                { class: 'finding-extra' },
                `Seen in ${f.reproduction.seen} of ${f.reproduction.of} samples`,
              )
            : null,
          r.missedBecause
            ? h('div', { class: 'finding-extra' }, 'Missed before because: ', r.missedBecause)
            : null,
          f.dispute
            ? h('div', { class: 'note' }, badge('disputed by the fixer'), ' ', f.dispute.reason)
            : null,
          h('div', { class: 'small muted mono' }, f.id),
        ),
        h('td', { class: 'small' }, gateText(f)),
        h('td', { class: 'small' }, refutationText(f)),
        h(
          'td',
          { class: 'small' },
          standing(f),
          f.settlement
            ? h(
                'div',
                { class: 'note' },
                badge(`settled: ${f.settlement.decision}`, f.settlement.decision === 'upheld' ? 'bad' : 'ok'),
                settledBy(f.settlement.by, pullRequest),
                f.settlement.note ? h('div', { class: 'muted' }, f.settlement.note) : null,
              )
            : null,
          settleable(f) ? settleForm(f, onSettled) : null,
        ),
      );
    }),
  );
}
