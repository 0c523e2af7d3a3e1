import { describe, expect, it } from 'vitest';
import {
  admissionKey,
  type CallKeyParts,
  callKey,
  findingFingerprint,
  findingId,
  snapshotKey,
} from '../../src/core/keys.js';
import type { AdmissionKeyParts, Snapshot } from '../../src/core/types.js';
import { sha256 } from '../../src/io/hash.js';

// Cast, not annotated: the Snapshot type grows while this suite stays a fixture of it.
const snapshot = (): Snapshot =>
  ({
    repo: '/repos/shop',
    change: 'pr-42',
    base: 'b'.repeat(40),
    head: 'h'.repeat(40),
    headRef: 'refs/heads/feature',
    configFrom: 'base',
    settlementsDigest: 's'.repeat(64),
    mergeBase: 'm'.repeat(40),
    diffDigest: 'd'.repeat(64),
    criteriaPath: 'REVIEW.md',
    criteriaDigest: 'c'.repeat(64),
    configDigest: 'f'.repeat(64),
    reviewers: [
      { name: 'correctness', adapter: 'command', model: 'm-1', promptTemplateDigest: 't1' },
      { name: 'standards', adapter: 'openai', model: 'm-2', promptTemplateDigest: 't2' },
    ],
    refuter: { name: 'refuter', adapter: 'command', promptTemplateDigest: 't3' },
    fixer: null,
    checks: [{ name: 'unit', run: ['npm', 'test'] }],
    protectedPaths: ['revloop.config.yaml', 'REVIEW.md'],
    policy: { requireScenario: true, scopeLock: true, stopWindow: 2, shrinkRatio: 0.2 },
    budgets: { rounds: 5, wallSeconds: 1800, costUsd: 5 },
    configPath: 'revloop.config.yaml',
    callSeconds: 300,
    retry: { attempts: 3, baseDelayMs: 500, maxDelayMs: 30_000 },
    controllerVersion: '0.1.0',
  }) as Snapshot;

const admission = (): AdmissionKeyParts => ({
  repo: '/repos/shop',
  base: 'b'.repeat(40),
  head: 'h'.repeat(40),
  diffDigest: 'd'.repeat(64),
  criteriaDigest: 'c'.repeat(64),
  configDigest: 'f'.repeat(64),
});

const call = (): CallKeyParts => ({
  snapshotKey: 'k'.repeat(64),
  runId: 'r1',
  round: 1,
  stage: 'review',
  role: 'reviewer',
  name: 'correctness',
  promptDigest: 'p'.repeat(64),
});

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** The path of every leaf of a value. */
function leafPaths(value: Json, path: string[] = []): string[][] {
  if (value === null || typeof value !== 'object') return [path];
  const entries = Array.isArray(value) ? value.map((v, i) => [String(i), v] as const) : Object.entries(value);
  return entries.flatMap(([k, child]) => leafPaths(child, [...path, k]));
}

/** A copy of `root` where only the leaf at `path` differs. */
function mutateAt(root: Json, path: string[]): Json {
  const copy = structuredClone(root) as Record<string, Json>;
  let at: Record<string, Json> = copy;
  for (const part of path.slice(0, -1)) at = at[part] as Record<string, Json>;
  const last = path.at(-1)!;
  const old = at[last];
  at[last] =
    typeof old === 'string'
      ? `${old}x`
      : typeof old === 'number'
        ? old + 1
        : typeof old === 'boolean'
          ? !old
          : 'x';
  return copy;
}

/** The same data with every object's keys inserted in reverse order. */
function reversed(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reversed);
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value)
        .reverse()
        .map(([k, v]) => [k, reversed(v)]),
    );
  return value;
}

describe('keys', () => {
  const kinds = [
    [
      'snapshot key',
      () => snapshot() as unknown as Json,
      (v: Json) => snapshotKey(v as unknown as Snapshot, sha256),
    ],
    [
      'admission key (invariant 3)',
      () => admission() as unknown as Json,
      (v: Json) => admissionKey(v as unknown as AdmissionKeyParts, sha256),
    ],
    [
      'call key (invariant 6)',
      () => call() as unknown as Json,
      (v: Json) => callKey(v as unknown as CallKeyParts, sha256),
    ],
  ] as const;

  describe.each(kinds)('%s', (_n, make, key) => {
    it('same input, same key, on a fresh copy', () => {
      expect(key(make())).toBe(key(structuredClone(make())));
      expect(key(make())).toMatch(/^[0-9a-f]{64}$/);
    });

    it('key order is irrelevant', () => {
      expect(key(reversed(make()) as Json)).toBe(key(make()));
    });

    it('any field change changes the key', () => {
      const base = key(make());
      const paths = leafPaths(make());
      expect(paths.length).toBeGreaterThan(5);
      for (const path of paths) expect([path, key(mutateAt(make(), path))]).not.toEqual([path, base]);
    });
  });

  it('a field left undefined is the same as a field absent, so optional pins do not split keys', () => {
    const a = snapshot();
    const b = snapshot();
    b.reviewers[0] = { ...b.reviewers[0]!, model: undefined };
    delete a.reviewers[0]!.model;
    expect(snapshotKey(a, sha256)).toBe(snapshotKey(b, sha256));
  });

  it('keys of different kinds never collide on the same data', () => {
    const parts = admission();
    expect(admissionKey(parts, sha256)).not.toBe(snapshotKey(parts as unknown as Snapshot, sha256));
  });

  it('reordering reviewers changes the snapshot key: they run in order', () => {
    const s = snapshot();
    const r = snapshot();
    r.reviewers.reverse();
    expect(snapshotKey(r, sha256)).not.toBe(snapshotKey(s, sha256));
  });

  it('finding ids are stable per (run, call, index) and distinct otherwise', () => {
    const id = findingId('run-1', 'ck', 0, sha256);
    expect(id).toHaveLength(16);
    expect(findingId('run-1', 'ck', 0, sha256)).toBe(id);
    expect(
      new Set([
        id,
        findingId('run-2', 'ck', 0, sha256),
        findingId('run-1', 'ck2', 0, sha256),
        findingId('run-1', 'ck', 1, sha256),
      ]).size,
    ).toBe(4);
  });

  it('finding fingerprints fold whitespace and case in the claim, not reviewer or file', () => {
    const fp = findingFingerprint('correctness', 'src/a.ts', 'Total is NaN on an empty cart', sha256);
    expect(findingFingerprint('correctness', 'src/a.ts', '  total  is nan\non an EMPTY cart ', sha256)).toBe(
      fp,
    );
    expect(findingFingerprint('standards', 'src/a.ts', 'Total is NaN on an empty cart', sha256)).not.toBe(fp);
    expect(findingFingerprint('correctness', 'src/b.ts', 'Total is NaN on an empty cart', sha256)).not.toBe(
      fp,
    );
    expect(findingFingerprint('correctness', 'src/a.ts', 'Total is NaN on a full cart', sha256)).not.toBe(fp);
  });
});
