import { describe, expect, it } from 'vitest';
import { configJsonSchema, parseConfig, reuseOf } from '../../src/core/config.js';

const minimal = () => ({ reviewers: [{ name: 'correctness', command: ['node', 'review.mjs'] }] });

const failure = (value: unknown) => {
  const r = parseConfig(value);
  if (r.ok) throw new Error(`expected ${JSON.stringify(value)} to be rejected`);
  return r;
};

describe('parseConfig', () => {
  it('fills every default from a minimal config', () => {
    const r = parseConfig(minimal());
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.config).toEqual({
      criteria: 'REVIEW.md',
      store: 'sqlite:.revloop/ledger.db',
      reviewers: [{ name: 'correctness', adapter: 'command', command: ['node', 'review.mjs'] }],
      checks: [],
      budgets: { rounds: 5, wallSeconds: 1800, costUsd: 5 },
      timeouts: { callSeconds: 300 },
      retry: { attempts: 3, baseDelayMs: 500, maxDelayMs: 30_000 },
      policy: { requireScenario: true, scopeLock: true, stopWindow: 2, shrinkRatio: 0.2 },
      keys: [],
      protect: [],
      ignore: [],
      review: {
        chunkBytes: 200_000,
        ignoreLinguist: false,
        contextBytes: 100_000,
        temperature: 0,
        maxRefutedPerReply: 20,
        reuse: 'never',
      },
      admission: { costWindowSeconds: 86_400 },
      publish: { github: {}, gitlab: {} },
      pool: { size: 4 },
    });
  });

  it('pool: a size from 0 to 64 and an optional directory; anything else names the key', () => {
    const ok = parseConfig({ ...minimal(), pool: { dir: '/var/cache/revloop' } });
    expect(ok.ok && ok.config.pool).toEqual({ size: 4, dir: '/var/cache/revloop' });
    for (const [pool, path] of [
      [{ size: -1 }, 'pool.size'],
      [{ size: 65 }, 'pool.size'],
      [{ size: 1.5 }, 'pool.size'],
      [{ dir: '' }, 'pool.dir'],
      [{ lanes: 2 }, 'pool.lanes'],
    ] as const) {
      const r = parseConfig({ ...minimal(), pool });
      expect(r.ok ? null : r.path, JSON.stringify(pool)).toBe(path);
    }
  });

  it('fills defaults inside a partly given section', () => {
    const r = parseConfig({
      ...minimal(),
      budgets: { rounds: 2 },
      policy: { scopeLock: false },
      checks: [{ name: 'unit', run: ['npm', 'test'] }],
    });
    expect(r.ok && r.config.budgets).toEqual({ rounds: 2, wallSeconds: 1800, costUsd: 5 });
    expect(r.ok && r.config.policy).toEqual({
      requireScenario: true,
      scopeLock: false,
      stopWindow: 2,
      shrinkRatio: 0.2,
    });
    expect(r.ok && r.config.checks).toEqual([{ name: 'unit', run: ['npm', 'test'], timeoutSeconds: 600 }]);
  });

  it('accepts the example of DESIGN.md', () => {
    const r = parseConfig({
      criteria: 'REVIEW.md',
      store: 'sqlite:.revloop/ledger.db',
      reviewers: [
        {
          name: 'correctness',
          command: ['node', 'tools/review.mjs', '--role', 'correctness'],
          model: 'some-model-id',
        },
        {
          name: 'standards',
          adapter: 'openai',
          baseURL: 'http://127.0.0.1:8080/v1',
          model: 'some-model-id',
          apiKeyEnv: 'OPENAI_API_KEY',
        },
      ],
      refuter: { command: ['node', 'tools/refute.mjs'] },
      fixer: { command: ['node', 'tools/fix.mjs'] },
      checks: [{ name: 'unit', run: ['npm', 'test'] }],
      budgets: { rounds: 5, wallSeconds: 1800, costUsd: 5 },
      timeouts: { callSeconds: 300 },
      retry: { attempts: 3 },
      policy: { requireScenario: true, scopeLock: true, stopWindow: 2 },
    });
    expect(r.ok).toBe(true);
  });

  describe('names the key path of an unknown key', () => {
    it.each([
      ['top level', { ...minimal(), reviewrs: [] }, 'reviewrs'],
      ['in a section', { ...minimal(), policy: { scopelock: false } }, 'policy.scopelock'],
      ['in a reviewer', { reviewers: [{ name: 'a', command: ['x'], modle: 'm' }] }, 'reviewers.0.modle'],
      ['in the fixer', { ...minimal(), fixer: { command: ['x'], timeout: 3 } }, 'fixer.timeout'],
      ['in a check', { ...minimal(), checks: [{ name: 'u', run: ['x'], shell: true }] }, 'checks.0.shell'],
      ['in budgets', { ...minimal(), budgets: { round: 3 } }, 'budgets.round'],
    ])('%s', (_n, value, path) => {
      expect(failure(value)).toEqual({ ok: false, path, message: 'unknown key' });
    });
  });

  describe('names the key path of a wrong type or value', () => {
    it.each([
      ['rounds as a string', { ...minimal(), budgets: { rounds: '5' } }, 'budgets.rounds'],
      ['fractional rounds', { ...minimal(), budgets: { rounds: 2.5 } }, 'budgets.rounds'],
      ['zero rounds', { ...minimal(), budgets: { rounds: 0 } }, 'budgets.rounds'],
      ['negative cost', { ...minimal(), budgets: { costUsd: -1 } }, 'budgets.costUsd'],
      [
        'requireScenario as a string',
        { ...minimal(), policy: { requireScenario: 'yes' } },
        'policy.requireScenario',
      ],
      ['stopWindow 0', { ...minimal(), policy: { stopWindow: 0 } }, 'policy.stopWindow'],
      ['shrinkRatio 0', { ...minimal(), policy: { shrinkRatio: 0 } }, 'policy.shrinkRatio'],
      ['shrinkRatio above 1', { ...minimal(), policy: { shrinkRatio: 1.5 } }, 'policy.shrinkRatio'],
      [
        'command as a string (no shell)',
        { reviewers: [{ name: 'a', command: 'node review.mjs' }] },
        'reviewers.0.command',
      ],
      ['empty command', { reviewers: [{ name: 'a', command: [] }] }, 'reviewers.0.command'],
      [
        'an unknown adapter',
        { reviewers: [{ name: 'a', adapter: 'gpt', command: ['x'] }] },
        'reviewers.0.adapter',
      ],
      [
        'a reviewer name with a space',
        { reviewers: [{ name: 'my reviewer', command: ['x'] }] },
        'reviewers.0.name',
      ],
      [
        'an API key where its variable name goes',
        { reviewers: [{ name: 'a', adapter: 'openai', model: 'm', apiKeyEnv: 'sk-123' }] },
        'reviewers.0.apiKeyEnv',
      ],
      [
        'a bad base URL',
        { reviewers: [{ name: 'a', adapter: 'openai', model: 'm', baseURL: 'not a url' }] },
        'reviewers.0.baseURL',
      ],
      ['retry attempts 0', { ...minimal(), retry: { attempts: 0 } }, 'retry.attempts'],
      ['reviewers missing', {}, 'reviewers'],
      ['no reviewers', { reviewers: [] }, 'reviewers'],
      ['not an object', 'reviewers: []', '(root)'],
    ])('%s', (_n, value, path) => {
      const r = failure(value);
      expect(r.path).toBe(path);
      expect(r.message.length).toBeGreaterThan(0);
    });
  });

  it('rejects duplicate reviewer names at the second one', () => {
    const r = failure({
      reviewers: [
        { name: 'a', command: ['x'] },
        { name: 'b', command: ['x'] },
        { name: 'a', command: ['y'] },
      ],
    });
    expect(r).toEqual({ ok: false, path: 'reviewers.2.name', message: 'duplicate reviewer name "a"' });
  });

  describe('adapter-specific requirements', () => {
    it.each([
      ['command needs command', { adapter: 'command' }, 'command'],
      ['command is the default adapter and needs command', {}, 'command'],
      ['scripted needs script', { adapter: 'scripted' }, 'script'],
      ['openai needs model', { adapter: 'openai', baseURL: 'http://127.0.0.1:1/v1' }, 'model'],
      ['anthropic needs model', { adapter: 'anthropic' }, 'model'],
    ])('%s', (_n, agent, key) => {
      expect(failure({ reviewers: [{ name: 'a', ...agent }] }).path).toBe(`reviewers.0.${key}`);
      expect(failure({ ...minimal(), refuter: agent }).path).toBe(`refuter.${key}`);
      expect(failure({ ...minimal(), fixer: agent }).path).toBe(`fixer.${key}`);
    });

    it.each([
      ['command with command', { adapter: 'command', command: ['x'] }],
      ['scripted with script', { adapter: 'scripted', script: 'replies.json' }],
      ['openai with model', { adapter: 'openai', model: 'm' }],
      ['anthropic with model', { adapter: 'anthropic', model: 'm' }],
    ])('%s is accepted', (_n, agent) => {
      expect(parseConfig({ reviewers: [{ name: 'a', ...agent }], fixer: agent }).ok).toBe(true);
    });
  });

  it('has a JSON schema for editors', () => {
    const schema = configJsonSchema() as { type?: string; properties?: Record<string, unknown> };
    expect(schema.type).toBe('object');
    expect(Object.keys(schema.properties ?? {})).toEqual(
      expect.arrayContaining(['reviewers', 'policy', 'budgets']),
    );
  });
});

describe('reuse of verdicts: config', () => {
  const minimal = { reviewers: [{ name: 'r', command: ['x'] }] };
  it('refuses reuse on the fixer, naming the key', () => {
    expect(parseConfig({ ...minimal, fixer: { command: ['f'], reuse: 'prompt' } })).toEqual({
      ok: false,
      path: 'fixer.reuse',
      message: "a fixer's calls are never reused (it edits the checkout)",
    });
  });
  it('refuses a value other than prompt or never, naming the key', () => {
    const res = parseConfig({ ...minimal, reviewers: [{ name: 'r', command: ['x'], reuse: 'always' }] });
    expect(res).toMatchObject({ ok: false, path: 'reviewers.0.reuse' });
  });
  it.each([
    // agent's reuse, adapter, review.reuse → effective
    [undefined, 'openai', 'prompt', 'prompt'],
    [undefined, 'anthropic', 'never', undefined],
    [undefined, 'command', 'prompt', undefined],
    [undefined, 'claude-code', 'prompt', undefined],
    ['prompt', 'command', 'never', 'prompt'],
    ['prompt', 'scripted', 'never', 'prompt'],
    ['never', 'openai', 'prompt', undefined],
  ] as const)('reuse %s on %s with review.reuse %s → %s', (own, adapter, review, want) => {
    expect(reuseOf({ adapter, reuse: own }, { reuse: review })).toBe(want);
  });
});
