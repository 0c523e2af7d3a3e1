/**
 * Issue 16, point 6: the status sets a store's SQL names come from core's
 * transition table. The stores' query code names no status literal; the
 * migrations, frozen text applied to ledgers that exist, must still agree
 * with the sets core derives (a table change that breaks that needs a new
 * migration, and this test says so).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ACTIVE_STATUSES, KEY_HOLDING, statusesInto } from '../../src/core/run-state.js';
import { RunStatus } from '../../src/core/types.js';
import { ACTIVE_SQL, canMoveInto, HELD_SQL, statusIn } from '../../src/store/shared/status-sql.js';

const ROOT = join(import.meta.dirname, '..', '..');
const read = (p: string) => readFileSync(join(ROOT, p), 'utf8');
/** A run status written out beside `status` (`status = 'queued'`, `status IN ('…'`, `status === '…'`). */
const STATUS_LITERAL = new RegExp(`status[^,;\\n'"]{0,16}'(${Object.values(RunStatus).join('|')})'`, 'g');

describe('status sets from core (issue 16, point 6)', () => {
  it.each(['src/store/sqlite/store.ts', 'src/store/postgres/store.ts', 'src/store/memory.ts'])(
    '%s types no run status of its own',
    (file) => {
      expect(read(file).match(STATUS_LITERAL) ?? []).toEqual([]);
    },
  );

  it('builds the SQL lists from the table', () => {
    expect(ACTIVE_STATUSES).toEqual(['queued', 'running']);
    expect(KEY_HOLDING).toEqual(['queued', 'running', 'completed']);
    expect(statusesInto('running')).toEqual(['queued', 'running']);
    expect(statusesInto('completed')).toEqual(['running']);
    expect(statusesInto('queued')).toEqual([]);
    expect(ACTIVE_SQL).toBe("status IN ('queued','running')");
    expect(HELD_SQL).toBe("status IN ('queued','running','completed')");
    expect(canMoveInto('timed_out')).toBe("status IN ('running')");
    // Nothing may move into `queued`: an UPDATE guarded by it matches no row.
    expect(canMoveInto('queued')).toBe('FALSE');
    expect(statusIn(['failed'], 'r.status')).toBe("r.status IN ('failed')");
  });

  it.each(['src/store/sqlite/migrations/001-initial.ts', 'src/store/postgres/migrations/001-initial.ts'])(
    "%s: the held-key index and the claimable index cover core's sets",
    (file) => {
      const sql = read(file);
      expect(sql).toMatch(new RegExp(`runs_admission_key_held[^;]*WHERE ${regexSource(HELD_SQL)};`));
      expect(sql).toMatch(new RegExp(`runs_claimable[^;]*WHERE ${regexSource(ACTIVE_SQL)};`));
      // The CHECK lists every status core knows, no more.
      const check = /CHECK \(status IN \(([^)]*)\)\)/.exec(sql)?.[1];
      expect(check?.split(',').map((s) => s.replace(/'/g, ''))).toEqual(Object.values(RunStatus));
    },
  );
});

function regexSource(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
