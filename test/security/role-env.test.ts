/**
 * Role processes get no secret they were not given (docs/security.md): a
 * real review whose check, command reviewer, refuter and command fixer dump
 * their whole environment, run with a CI job's secrets in revloop's. None of
 * them sees a token, a model key, the runner's tokens or the ledger's URL;
 * an agent sees exactly the extra variables its config's `env:` names.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { roleEnv } from '../../src/reviewers/role-env.js';
import {
  baseConfig,
  FIXED_FILE,
  findings,
  inProcess,
  makeReviewRepo,
  pass,
  raceFinding,
  reposRemovedAfterAll,
  review,
  testEnv,
} from '../loop/helpers.js';
import { JOB_SECRETS } from './job-secrets.js';

const DUMP = join(import.meta.dirname, '..', 'fixtures', 'security', 'env-dump.mjs');

const repos = reposRemovedAfterAll();
let out: string;
beforeAll(() => {
  out = mkdtempSync(join(tmpdir(), 'revloop-env-dump-'));
});
afterAll(() => rmSync(out, { recursive: true, force: true }));

function dumps(): { role: string; env: Record<string, string> }[] {
  return readdirSync(out).map((f) => ({
    role: f.replace(/-\d+\.json$/, ''),
    env: JSON.parse(readFileSync(join(out, f), 'utf8')) as Record<string, string>,
  }));
}

describe('the environment of role processes', () => {
  it('a check, a command reviewer, refuter and fixer see none of the job secrets; env: grants one name', async () => {
    const r = await makeReviewRepo({
      config: (a) => {
        const agent = { command: ['node', DUMP, out, ...a.command] };
        return baseConfig(agent, {
          reviewers: [{ name: 'correctness', ...agent, env: ['REVIEWER_EXTRA'] }],
          refuter: agent,
          fixer: agent,
          checks: [{ name: 'env', run: ['node', DUMP, out] }],
        });
      },
    });
    repos.push(r);
    r.plan({
      reviewer: [{ round: 1, reply: findings(raceFinding()) }, { reply: pass }],
      refuter: [{ reply: { decision: 'upheld', reason: 'the await splits the read from the write' } }],
      fixer: [{ write: { 'src/calc.js': FIXED_FILE }, reply: { disputed: [] } }],
    });
    const p = await inProcess(r.dir, {
      env: testEnv({ ...JOB_SECRETS, REVIEWER_EXTRA: 'given-on-purpose', SOME_OTHER: 'not-given' }),
    });
    try {
      const res = await review(p, r.dir);
      expect(res.report.run).toMatchObject({ status: 'completed', outcome: 'clear' });
    } finally {
      await p.close();
    }
    const seen = dumps();
    expect(new Set(seen.map((d) => d.role))).toEqual(new Set(['check', 'reviewer', 'refuter', 'fixer']));
    for (const { role, env } of seen) {
      for (const name of Object.keys(JOB_SECRETS)) expect(env[name], `${role} saw ${name}`).toBeUndefined();
      const values = Object.values(env).join('\n');
      for (const v of Object.values(JOB_SECRETS))
        expect(values, `${role} saw a secret value`).not.toContain(v);
      expect(env.SOME_OTHER, role).toBeUndefined();
      expect(env.PATH, role).toBeTruthy();
      expect(env.REVIEWER_EXTRA, role).toBe(role === 'reviewer' ? 'given-on-purpose' : undefined);
      if (role !== 'check') expect(env.REVLOOP_ROLE).toBe(role);
    }
  }, 120_000);

  it('agent CLIs get their own credentials; a proxy with a password is a credential', () => {
    const base = {
      ...JOB_SECRETS,
      PATH: '/usr/bin',
      LC_ALL: 'C',
      CODEX_HOME: '/h/.codex',
      HTTPS_PROXY: 'http://proxy:3128',
      HTTP_PROXY: 'http://user:pw@proxy:3128',
    };
    const claude = roleEnv(base, { names: [], prefixes: ['ANTHROPIC_', 'CLAUDE_CODE_'] });
    expect(Object.keys(claude).sort()).toEqual(['ANTHROPIC_API_KEY', 'HTTPS_PROXY', 'LC_ALL', 'PATH']);
    const codex = roleEnv(
      base,
      { names: ['OPENAI_API_KEY'], prefixes: ['CODEX_'] },
      { REVLOOP_ROLE: 'fixer' },
    );
    expect(Object.keys(codex).sort()).toEqual([
      'CODEX_HOME',
      'HTTPS_PROXY',
      'LC_ALL',
      'OPENAI_API_KEY',
      'PATH',
      'REVLOOP_ROLE',
    ]);
  });
});
