import { createHash, createPublicKey } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { checkSignatures, decodeBase64, pae, parseEnvelope, signEnvelope } from '../../src/record/dsse.js';
import { KeyExistsError, KeyFileError } from '../../src/record/errors.js';
import { generateKeyPair, keyIdOf, loadSigner, loadVerifiers } from '../../src/record/keys.js';
import { buildStatement, PREDICATE_TYPE, STATEMENT_TYPE } from '../../src/record/statement.js';
import { sampleReport } from '../report/fixtures.js';
import { cli, ensureBuilt } from './setup.js';

const tmp = () => mkdtempSync(join(tmpdir(), 'revloop-keys-'));

describe('DSSE', () => {
  it('PAE matches the spec test vector', () => {
    expect(pae('http://example.com/HelloWorld', Buffer.from('hello world')).toString()).toBe(
      'DSSEv1 29 http://example.com/HelloWorld 11 hello world',
    );
  });

  it('PAE lengths are byte lengths, not character lengths', () => {
    expect(pae('t/é', Buffer.from('ü', 'utf8')).toString('utf8')).toBe('DSSEv1 4 t/é 2 ü');
  });

  it('decodes standard and URL-safe base64, with or without padding, and rejects junk', () => {
    const bytes = Buffer.from([0xfb, 0xff, 0xfe, 0x01]);
    expect(decodeBase64('+//+AQ==')).toEqual(bytes);
    expect(decodeBase64('-__-AQ')).toEqual(bytes);
    for (const bad of ['+//+AQ=*', 'a', 'ab c', '+//+AR==']) expect(decodeBase64(bad)).toBeNull();
  });

  it('signs and verifies; a flipped payload byte or foreign key fails with the right code', () => {
    const d = tmp();
    const a = generateKeyPair(join(d, 'a'));
    const b = generateKeyPair(join(d, 'b'));
    const env = signEnvelope('application/x', Buffer.from('{"x":1}'), [loadSigner(a.privatePath)]);
    const parsed = parseEnvelope(JSON.stringify(env));
    if (!parsed.ok) throw new Error(parsed.reason);
    const [va] = loadVerifiers([a.publicPath]);
    const [vb] = loadVerifiers([b.publicPath]);
    expect(checkSignatures('application/x', parsed.body, parsed.sigs, [va!])).toEqual({
      ok: true,
      keyId: a.keyId,
    });
    expect(checkSignatures('application/y', parsed.body, parsed.sigs, [va!])).toMatchObject({
      code: 'bad_signature',
    });
    expect(checkSignatures('application/x', Buffer.from('{"x":2}'), parsed.sigs, [va!])).toMatchObject({
      code: 'bad_signature',
    });
    expect(checkSignatures('application/x', parsed.body, parsed.sigs, [vb!])).toMatchObject({
      code: 'unknown_key',
    });
    expect(checkSignatures('application/x', parsed.body, parsed.sigs, [])).toMatchObject({
      code: 'unknown_key',
    });
  });
});

describe('keys', () => {
  it('writes a PEM pair with a 0600 private key; key id is sha256 of the SPKI DER', () => {
    const d = tmp();
    const k = generateKeyPair(join(d, 'signing'));
    expect(statSync(k.privatePath).mode & 0o777).toBe(0o600);
    expect(readFileSync(k.privatePath, 'utf8')).toContain('BEGIN PRIVATE KEY');
    const pub = createPublicKey(readFileSync(k.publicPath));
    const der = pub.export({ type: 'spki', format: 'der' });
    expect(k.keyId).toBe(createHash('sha256').update(der).digest('hex'));
    expect(keyIdOf(pub)).toBe(k.keyId);
    expect(loadSigner(k.privatePath).keyId).toBe(k.keyId);
  });

  it('refuses to overwrite without force', () => {
    const d = tmp();
    const first = generateKeyPair(join(d, 's'));
    expect(() => generateKeyPair(join(d, 's'))).toThrow(KeyExistsError);
    expect(generateKeyPair(join(d, 's'), { force: true }).keyId).not.toBe(first.keyId);
  });

  it('names a file that is not a usable key', () => {
    const d = tmp();
    writeFileSync(join(d, 'x.pub'), 'nope');
    expect(() => loadVerifiers([join(d, 'x.pub')])).toThrow(KeyFileError);
    expect(() => loadSigner(join(d, 'missing.key'))).toThrow(/ENOENT/);
  });
});

describe('revloop keygen', () => {
  beforeAll(ensureBuilt);

  it('writes .revloop/keys/signing.{key,pub} under --repo, never prints the private key, refuses to overwrite (exit 2)', () => {
    const d = tmp();
    const r = cli(['keygen', '--repo', d, '--json'], d);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as { privatePath: string; publicPath: string; keyId: string };
    expect(out.privatePath).toBe(join(d, '.revloop/keys/signing.key'));
    expect(statSync(out.privatePath).mode & 0o777).toBe(0o600);
    expect(r.stdout).not.toContain('PRIVATE KEY');
    const again = cli(['keygen', '--repo', d], d);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('already exists (use --force');
    expect(cli(['keygen', '--repo', d, '--force'], d).code).toBe(0);
    const custom = cli(['keygen', '--out', join(d, 'ci/release')], d);
    expect(custom.code).toBe(0);
    expect(existsSync(join(d, 'ci/release.pub'))).toBe(true);
  });
});

describe('buildStatement', () => {
  it('subjects the final head and carries the decision, round log and final diff digest', () => {
    const report = sampleReport();
    const st = buildStatement(report, { finalDiffDigest: '9'.repeat(64) });
    expect(st._type).toBe(STATEMENT_TYPE);
    expect(st.predicateType).toBe(PREDICATE_TYPE);
    expect(st.subject).toEqual([
      { name: `git+${report.run.snapshot.repo}`, digest: { gitCommit: report.run.head } },
    ]);
    expect(st.predicate).toMatchObject({
      version: 1,
      runId: 'run-0001',
      finalHead: report.run.head,
      finalDiffDigest: '9'.repeat(64),
      status: 'completed',
      outcome: 'findings',
      stopReason: 'budget',
      createdAt: '2026-01-02T03:04:05.000Z',
    });
    expect(st.predicate.snapshot.head).not.toBe(report.run.head);
    expect(st.predicate.rounds.map((r) => r.blocking)).toEqual([1, 2]);
    expect(st.predicate.findings.filter((f) => f.blocking)).toHaveLength(3);
    // Pure: the same report gives the same statement.
    expect(JSON.stringify(buildStatement(report, { finalDiffDigest: '9'.repeat(64) }))).toBe(
      JSON.stringify(st),
    );
  });
});
