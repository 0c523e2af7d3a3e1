/**
 * Invariant 14: a clean record is not permission to merge. Every tampered or
 * mismatched record is refused with its code and exit code, through the real
 * CLI against a real checkout.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Envelope } from '../../src/record/dsse.js';
import { signStatement } from '../../src/record/write.js';
import { TEST_GIT_ENV } from '../helpers/git-repo.js';
import { cli, ensureBuilt, type Fixture, makeFixture } from './setup.js';

let fx: Fixture;
beforeAll(async () => {
  ensureBuilt();
  fx = await makeFixture();
});
afterAll(() => fx?.repo.cleanup());

function verify(record: string, ...extra: string[]) {
  const res = cli(['verify', record, '--repo', fx.repo.dir, '--json', ...extra], fx.repo.dir);
  return { ...res, json: JSON.parse(res.stdout) as Record<string, unknown> };
}

const envelopeOf = (path: string): Envelope => JSON.parse(readFileSync(path, 'utf8')) as Envelope;

function rewrite(path: string, edit: (e: Envelope) => Envelope | string): string {
  const out = `${path}.edited.json`;
  const e = edit(envelopeOf(path));
  writeFileSync(out, typeof e === 'string' ? e : JSON.stringify(e));
  return out;
}

describe('verify: the happy path', () => {
  it('accepts a clean record of the checkout signed by a key listed in the base config (exit 0)', async () => {
    const rec = fx.record(await fx.statement());
    const r = verify(rec);
    expect(r.json).toMatchObject({ ok: true, code: 'ok', runId: 'run-0001', head: fx.fix, outcome: 'clear' });
    expect(r.json.keyId).toMatch(/^[0-9a-f]{64}$/);
    expect(r.code).toBe(0);
    const plain = cli(['verify', rec, '--repo', fx.repo.dir], fx.repo.dir);
    expect(plain.code).toBe(0);
    expect(plain.stdout).toMatch(
      /^revloop verify: ok: record run-0001 covers [0-9a-f]{7}, outcome clear, signed by/,
    );
  });

  it('accepts an explicitly trusted --key, and URL-safe base64', async () => {
    const rec = fx.record(await fx.statement());
    expect(verify(rec, '--key', fx.teamPub).code).toBe(0);
    const urlSafe = rewrite(rec, (e) => ({
      ...e,
      payload: e.payload.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, ''),
      signatures: e.signatures.map((s) => ({ ...s, sig: s.sig.replace(/\+/g, '-').replace(/\//g, '_') })),
    }));
    expect(verify(urlSafe).code).toBe(0);
  });

  it('refuses outcome findings (exit 1) unless --allow-findings', async () => {
    const rec = fx.record(await fx.statement({ outcome: 'findings', stopReason: 'budget' }));
    const r = verify(rec);
    expect(r.json).toMatchObject({ ok: false, code: 'findings' });
    expect(r.code).toBe(1);
    expect(verify(rec, '--allow-findings').code).toBe(0);
  });
});

describe('verify: the tamper matrix', () => {
  it('payload edited -> bad_signature (4)', async () => {
    const rec = fx.record(await fx.statement({ outcome: 'findings', stopReason: 'budget' }));
    const edited = rewrite(rec, (e) => ({
      ...e,
      payload: Buffer.from(
        Buffer.from(e.payload, 'base64')
          .toString('utf8')
          .replace('"outcome":"findings"', '"outcome":"clear"'),
      ).toString('base64'),
    }));
    const r = verify(edited);
    expect(r.json).toMatchObject({ ok: false, code: 'bad_signature' });
    expect(r.code).toBe(4);
  });

  it('signature swapped from another record by the same key -> bad_signature (4)', async () => {
    const a = fx.record(await fx.statement());
    const b = fx.record(await fx.statement({ id: 'run-0002' }));
    const swapped = rewrite(a, (e) => ({ ...e, signatures: envelopeOf(b).signatures }));
    const r = verify(swapped);
    expect(r.json.code).toBe('bad_signature');
    expect(r.code).toBe(4);
  });

  it('signed by an unknown key -> unknown_key (4); a --key that did not sign it -> unknown_key (4)', async () => {
    const rec = fx.record(await fx.statement(), fx.other);
    const r = verify(rec);
    expect(r.json.code).toBe('unknown_key');
    expect(r.code).toBe(4);
    const good = fx.record(await fx.statement());
    expect(verify(good, '--key', fx.otherPub).json.code).toBe('unknown_key');
  });

  it('a record of another commit -> subject_mismatch (3)', async () => {
    const rec = fx.record(await fx.statement({ head: fx.head }));
    const r = verify(rec);
    expect(r.json.code).toBe('subject_mismatch');
    expect(r.code).toBe(3);
    const plain = cli(['verify', rec, '--repo', fx.repo.dir], fx.repo.dir);
    expect(plain.stderr.trim()).toBe(
      `revloop verify: refused: subject_mismatch: record covers ${fx.head.slice(0, 7)}, checkout HEAD is ${fx.fix.slice(0, 7)}`,
    );
  });

  it('a clean record replayed onto a new head -> subject_mismatch (3)', async () => {
    const rec = fx.record(await fx.statement());
    fx.repo.git(['checkout', '-q', '-b', 'replay']);
    fx.repo.write('src/a.ts', 'export let n = 0;\nexport const inc = () => (n -= 1);\n');
    fx.repo.commit('sneaky edit after review');
    try {
      const r = verify(rec);
      expect(r.json.code).toBe('subject_mismatch');
      expect(r.code).toBe(3);
    } finally {
      fx.repo.git(['checkout', '-q', 'feature']);
    }
  });

  it('a record whose diff digest is not the checkout diff -> diff_mismatch (3)', async () => {
    // Signed with the digest of the first revision although the subject is the fix.
    const rec = fx.record(await fx.statement({}, await fx.diffDigest(fx.head)));
    const r = verify(rec);
    expect(r.json.code).toBe('diff_mismatch');
    expect(r.code).toBe(3);
  });

  it('criteria changed -> criteria_mismatch (3)', async () => {
    const st = await fx.statement();
    st.predicate.snapshot.criteriaDigest = 'a'.repeat(64);
    const r = verify(fx.record(st));
    expect(r.json.code).toBe('criteria_mismatch');
    expect(r.code).toBe(3);
    expect(String(r.json.reason)).toContain('REVIEW.md at base');
  });

  it('a record whose status is not completed -> not_completed (1)', async () => {
    for (const status of ['failed', 'aborted', 'timed_out', 'unknown'] as const) {
      const rec = fx.record(
        await fx.statement({ status, outcome: null, stopReason: null, reason: 'malformed' }),
      );
      const r = verify(rec, '--allow-findings');
      expect(r.json.code).toBe('not_completed');
      expect(r.code).toBe(1);
    }
  });

  it('truncated, non-JSON or misshapen envelopes -> malformed (4)', async () => {
    const rec = fx.record(await fx.statement());
    const text = readFileSync(rec, 'utf8') as string;
    const cases = [
      text.slice(0, text.length / 2),
      'not json at all',
      '[]',
      JSON.stringify({ payloadType: 'application/vnd.in-toto+json', payload: 'e30=', signatures: [] }),
      JSON.stringify({ ...envelopeOf(rec), payload: '***' }),
      JSON.stringify({ ...envelopeOf(rec), payloadType: 'text/plain' }),
    ];
    for (const [i, c] of cases.entries()) {
      const p = join(fx.keysDir, `bad-${i}.json`);
      writeFileSync(p, c);
      const r = verify(p);
      expect([i, r.json.code]).toEqual([i, 'malformed']);
      expect(r.code).toBe(4);
    }
  });

  it('an unsupported predicate version, even correctly signed -> malformed (4)', async () => {
    const st = await fx.statement();
    (st.predicate as { version: number }).version = 2;
    const r = verify(fx.record(st));
    expect(r.json.code).toBe('malformed');
    expect(String(r.json.reason)).toContain('version 2');
  });

  it('a status or outcome the writer cannot write, even correctly signed -> malformed (4), never a pass', async () => {
    for (const [field, value] of [
      ['status', 'done'],
      ['outcome', 'mostly clear'],
    ] as const) {
      const st = await fx.statement();
      (st.predicate as unknown as Record<string, unknown>)[field] = value;
      const r = verify(fx.record(st), '--allow-findings');
      expect([field, r.json.code, r.code]).toEqual([field, 'malformed', 4]);
      expect(String(r.json.reason)).toContain(`predicate.${field} "${value}" is not`);
    }
  });

  it('a missing record file is a usage error (2)', () => {
    const r = cli(['verify', join(fx.keysDir, 'nope.json'), '--repo', fx.repo.dir], fx.repo.dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('refused: usage: cannot read record');
  });
});

describe('verify: which keys are trusted', () => {
  it('never trusts a key that the change under review adds (config or local key file)', async () => {
    fx.repo.git(['checkout', '-q', '-b', 'evil', fx.fix]);
    try {
      // The change lists its own key in the config and commits it as a local key file too.
      const pem = readFileSync(fx.otherPub, 'utf8') as string;
      fx.repo.write('keys/evil.pub', pem);
      fx.repo.write('.revloop/keys/evil.pub', pem);
      fx.repo.write(
        'revloop.config.yaml',
        'criteria: REVIEW.md\nreviewers:\n  - { name: correctness, command: [node, r.mjs] }\nkeys:\n  - keys/team.pub\n  - keys/evil.pub\n',
      );
      fx.repo.git(['add', '-f', '.revloop/keys/evil.pub']);
      const evilHead = fx.repo.commit('trust me');
      const st = await fx.statement({ head: evilHead });
      const r = verify(fx.record(st, fx.other));
      expect(r.json.code).toBe('unknown_key');
      expect(String(r.json.reason)).toContain('added or changed by the change under review');
      // The same record signed by the team key passes: only the key was the problem.
      expect(verify(fx.record(st)).code).toBe(0);
    } finally {
      fx.repo.git(['checkout', '-q', '-f', 'feature']);
      fx.repo.git(['clean', '-q', '-fdx']);
    }
  });

  it('trusts an untracked local key in .revloop/keys (written by keygen/init)', async () => {
    const rec = fx.record(await fx.statement(), fx.other);
    const local = join(fx.repo.dir, '.revloop/keys');
    mkdirSync(local, { recursive: true });
    writeFileSync(join(local, 'mine.pub'), readFileSync(fx.otherPub));
    try {
      expect(verify(rec).code).toBe(0);
    } finally {
      rmSync(local, { recursive: true, force: true });
    }
  });

  it('--keys-from reads the trusted keys at another ref', async () => {
    const rec = fx.record(await fx.statement());
    expect(verify(rec, '--keys-from', 'main').code).toBe(0);
    // A ref whose config lists no keys trusts nothing.
    fx.repo.git(['branch', 'nokeys', fx.base]);
    fx.repo.git(['checkout', '-q', 'nokeys']);
    fx.repo.write('revloop.config.yaml', 'criteria: REVIEW.md\nreviewers:\n  - { name: c, command: [x] }\n');
    fx.repo.commit('drop keys');
    fx.repo.git(['checkout', '-q', 'feature']);
    expect(verify(rec, '--keys-from', 'nokeys').json.code).toBe('unknown_key');
  });

  it('signs with a DSSE envelope whose every signature is tried (multi-signature)', async () => {
    const st = await fx.statement();
    const p = join(fx.keysDir, 'multi.json');
    writeFileSync(p, JSON.stringify(signStatement(st, [fx.other, fx.team])));
    expect(verify(p).code).toBe(0);
  });
});

describe('verify: a shallow checkout', () => {
  it('refuses (never passes) when the record base or merge base is missing, naming the fix', async () => {
    const rec = fx.record(await fx.statement());
    const shallow = join(fx.keysDir, 'shallow');
    execFileSync(
      'git',
      ['clone', '-q', '--depth', '1', '--branch', 'feature', `file://${fx.repo.dir}`, shallow],
      {
        env: TEST_GIT_ENV,
      },
    );
    // Keys are read at the clone's default trusted ref (its origin/HEAD), never at the record's
    // base: the missing history is then said by the diff.
    const noKey = cli(['verify', rec, '--repo', shallow, '--json'], shallow);
    expect(JSON.parse(noKey.stdout)).toMatchObject({ ok: false, code: 'diff_mismatch' });
    expect(JSON.parse(noKey.stdout).reason).toContain('fetch full history');
    const withKey = cli(['verify', rec, '--repo', shallow, '--key', fx.teamPub, '--json'], shallow);
    expect(JSON.parse(withKey.stdout)).toMatchObject({ ok: false, code: 'diff_mismatch' });
    expect(withKey.code).toBe(3);
  });
});
