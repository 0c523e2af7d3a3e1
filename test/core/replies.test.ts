import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/core/canonical-json.js';
import { extractJson, isInsideRepo, parseReply } from '../../src/core/replies.js';

describe('canonicalJson', () => {
  it('sorts keys and drops undefined so equal data hashes equal', () => {
    expect(canonicalJson({ b: 1, a: [1, { d: undefined, c: 'x' }] })).toBe('{"a":[1,{"c":"x"}],"b":1}');
  });
});

describe('reply schemas', () => {
  const finding = { severity: 'MAJOR', file: 'src/a.ts', line: 3, claim: 'lost update' };

  it('accepts a valid reviewer reply', () => {
    expect(parseReply('reviewer', { verdict: 'findings', findings: [finding] }).ok).toBe(true);
    expect(parseReply('reviewer', { verdict: 'pass', findings: [] }).ok).toBe(true);
  });

  it('names the JSON path of the first bad field', () => {
    const r = parseReply('reviewer', { verdict: 'findings', findings: [{ ...finding, severity: 'HUGE' }] });
    expect(r).toMatchObject({ ok: false });
    if (!r.ok) expect(r.detail).toMatch(/^\$\.findings\.0\.severity/);
  });

  it('rejects a pass that carries findings, and findings with none', () => {
    expect(parseReply('reviewer', { verdict: 'pass', findings: [finding] }).ok).toBe(false);
    expect(parseReply('reviewer', { verdict: 'findings', findings: [] }).ok).toBe(false);
  });

  it("spells a finding's path as git does: ./ and empty segments left out, nothing else", () => {
    const files = ['./tests/x.rs', 'src//a/./b.rs', 'src/ünï côde/naïve file.rs'].map((file) => {
      const r = parseReply('reviewer', { verdict: 'findings', findings: [{ ...finding, file }] });
      return r.ok && 'findings' in r.reply ? r.reply.findings[0]?.file : null;
    });
    expect(files).toEqual(['tests/x.rs', 'src/a/b.rs', 'src/ünï côde/naïve file.rs']);
  });

  it('rejects a finding whose path escapes the repository', () => {
    for (const file of ['../etc/passwd', '/etc/passwd', 'a/../../b', 'C:\\x']) {
      expect(isInsideRepo(file)).toBe(false);
      expect(parseReply('reviewer', { verdict: 'findings', findings: [{ ...finding, file }] }).ok).toBe(
        false,
      );
    }
    expect(isInsideRepo('src/a.ts')).toBe(true);
  });

  it('extracts JSON from plain or fenced text, and reports empty output', () => {
    expect(extractJson('{"a":1}')).toEqual({ ok: true, value: { a: 1 } });
    expect(extractJson('```json\n{"a":1}\n```')).toEqual({ ok: true, value: { a: 1 } });
    expect(extractJson('   ')).toEqual({ ok: false, detail: 'empty output' });
    expect(extractJson('nope').ok).toBe(false);
  });
});
