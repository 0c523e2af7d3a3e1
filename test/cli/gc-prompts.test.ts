/**
 * Stored prompts grow with every big change reviewed (a chunked review stores
 * its diff again per reviewer and round); `revloop gc --prompts-older-than`
 * prunes those no run used for that long, keeping what a recent run's
 * verdicts name, and nothing of a run depends on them afterwards.
 */
import { readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  baseConfig,
  ensureBuilt,
  makeReviewRepo,
  pass,
  reposRemovedAfterAll,
  runCli,
} from '../loop/helpers.js';

const repos = reposRemovedAfterAll();
beforeAll(() => ensureBuilt(), 120_000);

const DAY = 86_400_000;
const stored = (dir: string) =>
  readdirSync(join(dir, '.revloop', 'prompts'))
    .filter((f) => /^[0-9a-f]{64}\.txt$/.test(f))
    .sort();
const ageAll = (dir: string, days: number) => {
  const t = new Date(Date.now() - days * DAY);
  for (const f of stored(dir)) utimesSync(join(dir, '.revloop', 'prompts', f), t, t);
};

describe('revloop gc --prompts-older-than', () => {
  it('keeps prompts used recently or named by a recent run, removes the rest, and the run still replays', {
    timeout: 120_000,
  }, async () => {
    const r = await makeReviewRepo({ config: (a) => baseConfig(a) });
    repos.push(r);
    r.plan({ reviewer: [{ reply: pass }] });
    const rev = await runCli(['review', '--base', 'main', '--json'], { cwd: r.dir });
    expect(rev.code, rev.stderr).toBe(0);
    const runId = (JSON.parse(rev.stdout) as { runId: string }).runId;
    const used = stored(r.dir);
    expect(used.length).toBeGreaterThan(0);
    // A prompt no verdict names (a call of a run that was never admitted, say).
    const orphan = `${'a'.repeat(64)}.txt`;
    writeFileSync(join(r.dir, '.revloop', 'prompts', orphan), 'an old prompt\n');

    const gc = async (age: string) => {
      const res = await runCli(['gc', '--prompts-older-than', age, '--json'], { cwd: r.dir });
      expect(res.code, res.stderr).toBe(0);
      return (JSON.parse(res.stdout) as { prompts: { removed: number; bytes: number; kept: number } })
        .prompts;
    };

    // Everything was written just now: nothing is old.
    expect(await gc('30d')).toEqual({ removed: 0, bytes: 0, kept: used.length + 1 });

    // Forty days old by mtime: the orphan goes; the run ended just now, so its prompts stay.
    ageAll(r.dir, 40);
    expect(await gc('30d')).toEqual({ removed: 1, bytes: 'an old prompt\n'.length, kept: used.length });
    expect(stored(r.dir)).toEqual(used);

    // A run that ended before the cutoff keeps nothing.
    const pruned = await gc('0m');
    expect(pruned.removed).toBe(used.length);
    expect(stored(r.dir)).toEqual([]);

    // Prompts are audit material: the run still replays to its outcome without them.
    const replay = await runCli(['replay', runId], { cwd: r.dir });
    expect(replay.code, replay.stderr).toBe(0);
    const text = await runCli(['gc', '--prompts-older-than', '1d'], { cwd: r.dir });
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/, 0 stored prompt\(s\) unused for 1d removed \(0\.0 MB\), 0 kept\n$/);
  });

  it('a bad age is one line naming the flag, exit 2, and removes nothing', async () => {
    const r = await makeReviewRepo({ config: (a) => baseConfig(a) });
    repos.push(r);
    for (const bad of ['soon', '30', '-1d', '1.5d', '30 d']) {
      const res = await runCli(['gc', '--prompts-older-than', bad], { cwd: r.dir });
      expect(res.code, bad).toBe(2);
      expect(res.stderr.trim().split('\n'), bad).toHaveLength(1);
      expect(res.stderr).toContain(`--prompts-older-than: ${JSON.stringify(bad)} is not an age such as 30d`);
      expect(res.stdout).toBe('');
    }
  });
});
