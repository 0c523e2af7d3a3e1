import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isSecretName, redact, redactDeep, secretValues } from '../../src/reviewers/redact.js';

describe('which environment variables hold secrets', () => {
  it.each([
    'GITHUB_TOKEN',
    'GH_TOKEN',
    'GITLAB_TOKEN',
    'CI_JOB_TOKEN',
    'ANTHROPIC_API_KEY',
    'OPENAI_API_KEY',
    'ACTIONS_ID_TOKEN_REQUEST_TOKEN',
    'ACTIONS_RUNTIME_TOKEN',
    'AWS_SECRET_ACCESS_KEY',
    'AWS_SESSION_TOKEN',
    'PGPASSWORD',
    'NPM_AUTH',
    'DOCKER_PASSPHRASE',
    'GOOGLE_APPLICATION_CREDENTIALS_JSON',
    'my_service_key',
  ])('%s is a secret', (name) => expect(isSecretName(name)).toBe(true));

  it.each(['PATH', 'HOME', 'PWD', 'OLDPWD', 'GIT_AUTHOR_NAME', 'SSH_AUTH_SOCK', 'KEYTIMEOUT', 'LANG'])(
    '%s is not',
    (name) => expect(isSecretName(name)).toBe(false),
  );

  it('takes secret-named values, URL passwords and extras; skips short values', () => {
    const env = {
      GITHUB_TOKEN: 'abcdefgh12345',
      SHORT_TOKEN: 'abc',
      DATABASE_URL: 'postgres://ci:s3cr%40tpass@db:5432/x',
      HOME: '/home/someone',
    };
    expect(secretValues(env, ['configured-key-1'])).toEqual([
      'configured-key-1',
      'abcdefgh12345',
      's3cr@tpass',
    ]);
  });
});

describe('redact', () => {
  it.each([
    ['ghp_0123456789abcdefghij0123456789abcdef', '[redacted]'],
    ['token=github_pat_11ABCDEFG0123456789_abcdefghijklmnop.', 'token=[redacted].'],
    ['glpat-abcdefghij0123456789', '[redacted]'],
    ['key "sk-ant-api03-abcdefghij0123456789"', 'key "[redacted]"'],
    ['sk-proj-abcdefghij0123456789XYZ', '[redacted]'],
    ['xoxb-123456789012-abcdefghij', '[redacted]'],
    ['id AKIAIOSFODNN7EXAMPLE here', 'id [redacted] here'],
    ['eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.abcdefghijk_-', '[redacted]'],
  ])('%s', (text, out) => expect(redact(text, [])).toBe(out));

  it.each([
    'a task-based-approach-for-many-things-here',
    'commit 3f0c9a7e5b2d4c6e8a1b3d5f7e9c0a2b4d6f8e1c',
    'the ghp_ prefix alone',
    'risk-assessment-of-the-whole-module',
  ])('leaves ordinary text: %s', (text) => expect(redact(text, [])).toBe(text));

  it('replaces every occurrence of every known value, inside any string of a reply', () => {
    const reply = { verdict: 'findings', findings: [{ claim: 'x VALUE-0001 y VALUE-0001', line: 3 }] };
    expect(redactDeep(reply, ['VALUE-0001'])).toEqual({
      verdict: 'findings',
      findings: [{ claim: 'x [redacted] y [redacted]', line: 3 }],
    });
    const clean = { a: ['b', { c: 1 }] };
    expect(redactDeep(clean, ['VALUE-0001'])).toBe(clean);
  });

  it('no known value survives, wherever it sits in the text (300 cases)', () => {
    const secret = fc.string({
      unit: fc.constantFrom('a', 'B', '7', '-', '_', '.', '/'),
      minLength: 8,
      maxLength: 30,
    });
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), secret, fc.string({ maxLength: 40 }), (pre, s, post) => {
        expect(redact(`${pre}${s}${post}${s}`, secretValues({}, [s]))).not.toContain(s);
      }),
      { numRuns: 300 },
    );
  });
});
