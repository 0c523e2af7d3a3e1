/**
 * Invariant 3 across real OS processes: children racing on one SQLite file
 * and on one PostgreSQL database create exactly one run per admission key,
 * and never more runs than the capacity limit allows.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/index.js';
import { createTestDatabase, type TestDatabase } from '../helpers/pg.js';
import { compileStore } from './fixtures/compile.js';

const run = promisify(execFile);
const CHILD = join(import.meta.dirname, 'fixtures', 'admit-child.mjs');
const PROCS = 6;

let compiled: ReturnType<typeof compileStore>;
let pgdb: TestDatabase;
const tmp = mkdtempSync(join(tmpdir(), 'revloop-race-'));

beforeAll(async () => {
  compiled = compileStore();
  pgdb = await createTestDatabase();
});
afterAll(async () => {
  compiled?.remove();
  await pgdb?.drop();
  rmSync(tmp, { recursive: true, force: true });
});

type Line = { key: string; kind: string; runId: string | null };

async function race(url: string, keysFor: (i: number) => string[], maxActive?: number): Promise<Line[]> {
  // Open (and migrate) once first so that the race is over admission, not schema creation.
  await (await openStore(url)).close();
  const startAt = Date.now() + 1500;
  const outs = await Promise.all(
    Array.from({ length: PROCS }, (_, i) =>
      run(process.execPath, [
        CHILD,
        compiled.index,
        url,
        String(startAt),
        maxActive === undefined ? '-' : String(maxActive),
        ...keysFor(i),
      ]),
    ),
  );
  return outs.flatMap((o) => JSON.parse(o.stdout) as Line[]);
}

const targets = () => [
  ['sqlite', `sqlite:${join(tmp, `race-${Math.random().toString(36).slice(2)}.db`)}`],
  ['postgres', pgdb.url],
];

describe('admission races between processes (invariant 3)', () => {
  for (const which of ['sqlite', 'postgres'] as const) {
    it(`${which}: ${PROCS} processes admitting one key create one run`, async () => {
      const url = targets().find(([n]) => n === which)![1]!;
      const key = `same-${which}-${Date.now()}`;
      const lines = await race(url, () => [key]);
      expect(lines).toHaveLength(PROCS);
      expect(lines.filter((l) => l.kind === 'created')).toHaveLength(1);
      expect(new Set(lines.map((l) => l.runId)).size).toBe(1);
      const store = await openStore(url);
      expect(await store.listRuns({ admissionKey: key })).toHaveLength(1);
      await store.close();
    });

    it(`${which}: ${PROCS} processes asking to review one revision again create one rerun`, async () => {
      const url = targets().find(([n]) => n === which)![1]!;
      const key = `again-${which}-${Date.now()}`;
      const store = await openStore(url);
      const first = await store.admit({
        runId: `first-${key}`,
        admissionKey: key,
        changeKey: 'race#1',
        repo: 'race',
        snapshotKey: `sk-${key}`,
        snapshot: { head: 'h'.repeat(40), budgets: { rounds: 1, wallSeconds: 60, costUsd: 1 } } as never,
      });
      const owner = { id: 'o', host: 'h', pid: 1 };
      const lease = (await store.acquireLease(first.kind === 'deferred' ? '' : first.run.id, owner, 60_000))!;
      await store.finishRun(lease, {
        status: 'completed',
        outcome: 'clear',
        stopReason: 'clear',
        reason: null,
        detail: null,
      });
      const lines = await race(url, () => [`rerun:${key}`]);
      expect(lines.filter((l) => l.kind === 'created')).toHaveLength(1);
      expect(new Set(lines.map((l) => l.runId)).size).toBe(1);
      const rerun = await store.getRun(lines[0]?.runId as string);
      expect(rerun?.rerun).toMatchObject({ ordinal: 1, reason: 'racing reruns' });
      await store.close();
    });

    it(`${which}: racing processes never exceed the capacity limit`, async () => {
      const url = targets().find(([n]) => n === which)![1]!;
      const tag = `cap-${which}-${Date.now()}`;
      const store = await openStore(url);
      const before = (await store.listRuns({ status: ['queued', 'running'] })).length;
      const lines = await race(
        url,
        (i) => Array.from({ length: 4 }, (_, k) => `${tag}-${i}-${k}`),
        before + 7,
      );
      expect(lines.filter((l) => l.kind === 'created')).toHaveLength(7);
      expect(lines.filter((l) => l.kind === 'deferred')).toHaveLength(PROCS * 4 - 7);
      expect((await store.listRuns({ status: ['queued', 'running'] })).length).toBe(before + 7);
      await store.close();
    });
  }
});
