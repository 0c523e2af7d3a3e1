/**
 * Pieces the service page and the run page share: a pull request's name, a
 * table of deliveries, and how a settlement made from a pull request is known.
 */
import type { DeliveryView } from '../view-types.js';
import { age, badge, h, short, table, when } from './dom.js';

/** `owner/name#7`, or GitLab's `group/project!7`: as each forge writes a pull (merge) request. */
export const prName = (forge: string, repository: string, pr: number): string =>
  `${repository}${forge === 'gitlab' ? '!' : '#'}${pr}`;

/**
 * The person of a settlement made by a comment command on a pull request: the
 * forge's identity, `github:login` or `gitlab:username` (the service writes it
 * so; a name typed on the command line or the page has no such prefix).
 */
export const forgeIdentity = (by: string): { forge: string; login: string } | null => {
  const m = /^(github|gitlab):([A-Za-z0-9][A-Za-z0-9._\-[\]]*)$/.exec(by);
  return m ? { forge: m[1]!, login: m[2]! } : null;
};

const STATE_KIND: Record<string, string> = { admitted: 'ok', failed: 'bad', pending: 'st-queued' };

function row(d: DeliveryView, now: number): HTMLElement {
  const run = d.runId
    ? h('a', { href: `/runs/${encodeURIComponent(d.runId)}`, class: 'mono run-link' }, d.runId.slice(0, 14))
    : h('span', { class: 'muted' }, '—');
  return h(
    'tr',
    { 'data-delivery': `${d.forge}:${d.deliveryId}` },
    h('td', { class: 'num', title: when(d.receivedAt) }, `${age(now - d.receivedAt)} ago`),
    h('td', {}, d.forge),
    h('td', {}, d.event, d.sender ? h('div', { class: 'small muted' }, `from ${d.sender}`) : null),
    h(
      'td',
      { class: 'pr' },
      prName(d.forge, d.repository, d.pr),
      h('div', { class: 'small muted' }, `into ${d.baseBranch}`),
    ),
    h('td', { class: 'mono small', title: d.head ?? '' }, short(d.head)),
    h(
      'td',
      { class: 'state' },
      badge(d.state, STATE_KIND[d.state] ?? ''),
      d.attempts > 1 ? h('div', { class: 'small muted' }, `${d.attempts} attempts`) : null,
    ),
    h('td', { class: 'small detail' }, d.detail ?? '—'),
    h('td', {}, run),
  );
}

/** Deliveries, newest first, each row naming the run it admitted with a link to it. */
export const deliveriesTable = (id: string, deliveries: DeliveryView[], now: number): HTMLElement =>
  table(
    { id },
    [
      h('th', { class: 'num' }, 'Received'),
      'Forge',
      'Event',
      'Pull request',
      'Head',
      'State',
      'Detail',
      'Run',
    ],
    deliveries.map((d) => row(d, now)),
  );
