/** The per-reviewer calibration ledger (blockers raised, overturned, rate, reading) as a table. */
import type { ReviewerCalibration } from '../../analyze/analyze.js';
import { badge, h, table } from './dom.js';

const readingKind = (read: string): string =>
  read.startsWith('inflating')
    ? 'bad'
    : read.startsWith('noisy')
      ? 'sev-MODERATE'
      : read.startsWith('calibrated')
        ? 'ok'
        : '';

export function ledgerTable(rows: ReviewerCalibration[], id: string): HTMLElement {
  if (rows.length === 0) return h('p', { class: 'muted', id }, 'No reviewer raised a finding.');
  // Only a ledger of sampled runs has the column (review.samples): the share of findings another sample found too.
  const sampled = rows.some((r) => r.reproduction);
  return table(
    { id, class: 'ledger' },
    [
      'Reviewer',
      ...['Blockers raised', 'Overturned', 'Overturn rate', ...(sampled ? ['Reproduced'] : [])].map((t) =>
        h('th', { class: 'num' }, t),
      ),
      'Reading',
    ],
    rows.map((r) => {
      const [word, ...rest] = r.read.split(':');
      return h(
        'tr',
        {},
        h('td', {}, r.reviewer),
        h('td', { class: 'num' }, r.blockersRaised),
        h('td', { class: 'num' }, r.overturned),
        h('td', { class: 'num' }, `${(r.overturnRate * 100).toFixed(0)}%`),
        sampled
          ? h(
              'td',
              { class: 'num' },
              r.reproduction
                ? `${(r.reproduction.rate * 100).toFixed(0)}% of ${r.reproduction.sampled}`
                : '—',
            )
          : null,
        h(
          'td',
          {},
          badge(word ?? r.read, readingKind(r.read)),
          rest.length ? h('span', { class: 'small muted' }, `:${rest.join(':')}`) : null,
        ),
      );
    }),
  );
}
