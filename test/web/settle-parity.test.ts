/**
 * Issue 16, point 10: `revloop settle` and the dashboard's settle form are one
 * operation (src/loop/settle.ts). The same bad input gets the same error from
 * both: the CLI prints it (exit 2), the page gets it as JSON; only the field's
 * name is each surface's own (`--by` there, `by` here).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SETTLE_DECISIONS } from '../../src/core/choices.js';
import type { Store } from '../../src/ports/store.js';
import { openStore } from '../../src/store/index.js';
import { TOKEN_HEADER } from '../../src/web/security.js';
import { createApp } from '../../src/web/server.js';
import { ensureBuilt } from '../loop/helpers.js';
import { admitInput, clear, finding, owner, reviewResult } from '../store/fixtures/data.js';

const CLI = new URL('../../dist/cli/main.js', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'revloop-settle-'));
const url = `sqlite:${join(dir, 'ledger.db')}`;
const HOST = '127.0.0.1:7357';
const TOKEN = 't'.repeat(32);
let store: Store;
const ids: string[] = [];

beforeAll(async () => {
  ensureBuilt();
  execFileSync('git', ['init', '-q', dir]);
  store = await openStore(url);
  const a = await store.admit(admitInput());
  if (a.kind !== 'created') throw new Error(a.kind);
  const lease = (await store.acquireLease(a.run.id, owner('w'), 60_000))!;
  const fs = [0, 1, 2].map((i) => finding(lease.runId, 'ck', i, `f${i}-${'a'.repeat(12)}`));
  await store.completeStage(lease, { round: 1, stage: 'review', result: reviewResult(), findings: fs });
  await store.finishRun(lease, { ...clear, outcome: 'findings', stopReason: 'awaiting_settlement' });
  ids.push(...fs.map((f) => f.id));
  // ensureBuilt may build the CLI: minutes on a loaded machine.
}, 600_000);
afterAll(async () => {
  await store?.close();
  rmSync(dir, { recursive: true, force: true });
});

const cli = (finding: string, by: string, decision = 'overturned') => {
  const r = spawnSync(
    process.execPath,
    [CLI, 'settle', finding, '--by', by, '--decision', decision, '--repo', dir, '--store', url],
    { encoding: 'utf8', env: { PATH: process.env.PATH } },
  );
  return { code: r.status, stderr: r.stderr.trim(), stdout: r.stdout };
};
const page = async (finding: string, body: unknown) => {
  const app = createApp({ store, repoRoot: dir, token: TOKEN, hosts: () => [HOST] });
  const res = await app.request(`/api/findings/${finding}/settle`, {
    method: 'POST',
    headers: { host: HOST, 'content-type': 'application/json', [TOKEN_HEADER]: TOKEN },
    body: JSON.stringify(body),
  });
  return { status: res.status, error: ((await res.json()) as { error?: string }).error };
};

describe('settle: one operation for the CLI and the page (issue 16, point 10)', () => {
  it.each([
    ['a blank name', () => ids[0]!, '   ', 400, 'by must name the person deciding (1 to 200 characters)'],
    [
      'a name too long',
      () => ids[0]!,
      'x'.repeat(201),
      400,
      'by must name the person deciding (1 to 200 characters)',
    ],
    [
      'an unknown finding',
      () => 'ffffffffffff',
      'Ada',
      404,
      'no finding matches "ffffffffffff" in the ledger',
    ],
  ])('%s: the same error from both, nothing settled', async (_what, id, by, status, message) => {
    const fromCli = cli(id(), by);
    expect(fromCli.code).toBe(2);
    expect(fromCli.stdout).toBe('');
    const fromPage = await page(id(), { by, decision: 'overturned' });
    expect(fromPage.status).toBe(status);
    // The page names the field as its JSON does; the CLI as its flag does. The words are the same.
    expect(fromPage.error).toBe(message);
    expect(fromCli.stderr).toBe(`revloop: ${message.replace(/^by /, '--by ')}`);
    for (const f of ids) expect((await store.getFinding(f))?.settlement).toBeNull();
  });

  it('a decision outside the one list is refused by both; both take each one on it', async () => {
    expect(cli(ids[0]!, 'Ada', 'maybe')).toMatchObject({ code: 2 });
    expect(cli(ids[0]!, 'Ada', 'maybe').stderr).toContain(SETTLE_DECISIONS.join(', '));
    expect(await page(ids[0]!, { by: 'Ada', decision: 'maybe' })).toEqual({
      status: 400,
      error: `decision must be ${SETTLE_DECISIONS.join(' or ')}`,
    });
    expect(SETTLE_DECISIONS).toEqual(['upheld', 'overturned']);
    expect(cli(ids[1]!, ' Ada ', 'upheld').code).toBe(0);
    expect((await page(ids[2]!, { by: ' Grace ', decision: 'overturned', note: '  ' })).status).toBe(200);
    expect((await store.getFinding(ids[1]!))?.settlement).toMatchObject({
      by: 'Ada',
      decision: 'upheld',
      note: null,
    });
    expect((await store.getFinding(ids[2]!))?.settlement).toMatchObject({ by: 'Grace', note: null });
  });

  it('a finding settled already: the same refusal from both, the first decision kept', async () => {
    const message = `finding ${ids[1]} was already settled by Ada`;
    expect(cli(ids[1]!, 'Bob')).toEqual({ code: 2, stderr: `revloop: ${message}`, stdout: '' });
    expect(await page(ids[1]!, { by: 'Bob', decision: 'overturned' })).toEqual({
      status: 409,
      error: message,
    });
    expect((await store.getFinding(ids[1]!))?.settlement?.by).toBe('Ada');
  });
});
