/**
 * Issue 16, point 1: stage results and replies are typed once, at the store
 * boundary (core/stored-rows.ts); nothing in src/ casts one after it. This
 * pins it by reading the source, so a new cast fails here with its line.
 */
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SRC, sourceFiles } from '../helpers/source-files.js';

const RESULT_OR_REPLY =
  /\bas\s+(?:Partial<)?(?:ReviewResult|RefuteResult|FixResult|ChecksResult|DecideResult|RecordedFix|ReviewerReply|RefuterReply|FixerReply|StageResults|ReplyOf)\b/;
/** A cast of whatever a stage row or verdict holds, whatever type it is cast to. */
const OF_ROW = /\.(?:result|reply)\)?\s+as\s/;
const DOUBLE = /\bas unknown as\b/;
/** `as unknown as` outside stage results, each with why it stays (not this to remove). */
// The bundle's SQLite driver shim stands in for better-sqlite3's constructor, loaded on first use:
// a function that constructs the driver's database is that constructor's type only by a cast.
const DOUBLE_ALLOWED = new Set(['record/verify.ts', 'store/sqlite/bundled-driver.ts']);

function hits(re: RegExp, allowed: Set<string> = new Set()): string[] {
  return sourceFiles().flatMap((f) => {
    const rel = relative(SRC, f);
    if (allowed.has(rel)) return [];
    return readFileSync(f, 'utf8')
      .split('\n')
      .flatMap((line, i) => (re.test(line) ? [`${rel}:${i + 1}: ${line.trim()}`] : []));
  });
}

describe('no cast of a stage result or a reply in src/ (issue 16)', () => {
  it('casts to a stage result or reply type: none', () => {
    expect(hits(RESULT_OR_REPLY)).toEqual([]);
  });
  it('casts of a row.result or verdict.reply: none', () => {
    expect(hits(OF_ROW)).toEqual([]);
  });
  it('`as unknown as`: none outside the listed exceptions', () => {
    expect(hits(DOUBLE, DOUBLE_ALLOWED)).toEqual([]);
  });
  it('the check sees a cast when there is one', () => {
    expect(RESULT_OR_REPLY.test('const r = row.result as DecideResult;')).toBe(true);
    expect(OF_ROW.test('const r = (v.reply as { findings: unknown[] });')).toBe(true);
    expect(DOUBLE.test('x as unknown as Y')).toBe(true);
  });
  it('web/ reads stage results from core, not from the loop stages', () => {
    expect(hits(/from '\.\.\/loop\/stages\//)).toEqual([]);
  });
});
