/** The small owners of a run's state (issue 16, point 5): each keeps its fields private and says what it knows. */
import { describe, expect, it } from 'vitest';
import { WorktreeState } from '../../src/loop/checkout/worktree-state.js';
import { FreezeGuard } from '../../src/loop/run/freeze-guard.js';
import { Memo } from '../../src/loop/run/memo.js';
import { RunBudget } from '../../src/loop/run/run-budget.js';

describe('Memo', () => {
  it('reads each key once, forgets a failure unless told to keep it, and lets a fresh read replace one', async () => {
    let reads = 0;
    const m = new Memo<number>();
    const read = () => Promise.resolve(++reads);
    expect(await m.get('a', read)).toBe(1);
    expect(await m.get('a', read)).toBe(1);
    await expect(m.get('b', () => Promise.reject(new Error('no')))).rejects.toThrow('no');
    expect(await m.get('b', read)).toBe(2);
    expect(await m.put('a', Promise.resolve(9))).toBe(9);
    expect(await m.get('a', read)).toBe(9);
    m.seed('a', Promise.resolve(0));
    expect(await m.get('a', read)).toBe(9);

    const keep = new Memo<number>(true);
    await expect(keep.get('x', () => Promise.reject(new Error('kept')))).rejects.toThrow('kept');
    await expect(keep.get('x', read)).rejects.toThrow('kept');
  });
});

describe('FreezeGuard', () => {
  it('keeps a passed check current for its head until the next agent attempt', () => {
    const g = new FreezeGuard();
    expect(g.isCurrent('h')).toBe(false);
    g.passed(g.mark('h'));
    expect(g.isCurrent('h')).toBe(true);
    expect(g.isCurrent('other')).toBe(false);
    g.noteAttempt();
    expect(g.isCurrent('h')).toBe(false);
  });

  it('leaves a check stale when an attempt began while it ran', () => {
    const g = new FreezeGuard();
    const mark = g.mark('h');
    g.noteAttempt();
    g.passed(mark);
    expect(g.isCurrent('h')).toBe(false);
  });
});

describe('WorktreeState', () => {
  it('knows the revision it holds until touched, and a commit it made once', () => {
    const w = new WorktreeState();
    expect(w.isKnownClean()).toBe(false);
    w.readiedAt('a');
    expect(w.isCleanAt('a')).toBe(true);
    expect(w.isCleanAt('b')).toBe(false);
    w.touched();
    expect(w.isKnownClean()).toBe(false);
    w.committed('c');
    expect(w.takeCommitted('c')).toBe(true);
    expect(w.takeCommitted('c')).toBe(false);
    expect(w.isVetted()).toBe(false);
    w.vet();
    expect(w.isVetted()).toBe(true);
  });
});

describe('RunBudget', () => {
  const budgets = { rounds: 3, wallSeconds: 10, costUsd: 1 };
  const clockAt = (t: { now: number }) => ({ now: () => t.now, sleep: async () => undefined });
  const end = (e: { reason: string | null }) => new Error(String(e.reason));

  it('ends the run when the wall time or the recorded spend runs out, never otherwise', () => {
    const t = { now: 1_000 };
    let spent = 0;
    const b = new RunBudget(budgets, 1_000, clockAt(t), () => spent, end);
    expect(b.wallDeadline()).toBe(11_000);
    expect(() => b.check()).not.toThrow();
    spent = 1;
    expect(() => b.check()).toThrow('budget_cost');
    spent = 0;
    t.now = 11_000;
    expect(() => b.check()).toThrow('budget_wall');
  });
});
