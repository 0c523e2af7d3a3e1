/**
 * The shipped JSON Schema of revloop.config.yaml (issue 15, point 11) states
 * every rule the loader enforces that JSON Schema can express: each config
 * the loader rejects, the schema rejects too (checked with ajv, draft
 * 2020-12 as the schema declares), each config it accepts passes, and what
 * the schema cannot state (unique reviewer names) is said in a description.
 */
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { parseConfigText } from '../../src/config/parse.js';
import { configJsonSchema, parseConfig } from '../../src/core/config.js';

const shipped = JSON.parse(
  readFileSync(new URL('../../schema/revloop.config.schema.json', import.meta.url), 'utf8'),
);

const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats.default(ajv);
const validate = ajv.compile(shipped);

const cmd = ['node', 'review.mjs'];
const minimal = () => ({ reviewers: [{ name: 'correctness', command: cmd }] });

/** Each agent shape that the loader rejects, and the key its message must name. */
const BAD_AGENTS: [string, Record<string, unknown>, string][] = [
  ['command without command', { adapter: 'command' }, 'command'],
  ['the default adapter without command', {}, 'command'],
  ['scripted without script', { adapter: 'scripted' }, 'script'],
  ['openai without model', { adapter: 'openai', baseURL: 'http://127.0.0.1:1/v1' }, 'model'],
  ['anthropic without model', { adapter: 'anthropic' }, 'model'],
  ['an empty command', { command: [] }, 'command'],
  ['a command as one string', { command: 'node review.mjs' }, 'command'],
  ['an unknown adapter', { adapter: 'gpt', command: cmd }, 'adapter'],
  [
    'an API key where its variable name goes',
    { adapter: 'openai', model: 'm', apiKeyEnv: 'sk-123' },
    'apiKeyEnv',
  ],
  ['an unknown key', { command: cmd, modle: 'm' }, 'modle'],
];

const GOOD_AGENTS: [string, Record<string, unknown>][] = [
  ['command with command', { adapter: 'command', command: cmd }],
  ['the default adapter with command', { command: cmd }],
  ['scripted with script', { adapter: 'scripted', script: 'replies.json' }],
  ['openai with model', { adapter: 'openai', model: 'm', apiKeyEnv: 'OPENAI_API_KEY' }],
  ['anthropic with model', { adapter: 'anthropic', model: 'm' }],
  ['claude-code with its default executable', { adapter: 'claude-code' }],
  ['codex with its default executable', { adapter: 'codex' }],
];

/** Where an agent goes in a config: a reviewer, the refuter, the fixer. */
const ROLES: [string, (a: Record<string, unknown>) => unknown, string][] = [
  ['a reviewer', (a) => ({ reviewers: [{ name: 'a', ...a }] }), 'reviewers.0.'],
  ['the refuter', (a) => ({ ...minimal(), refuter: a }), 'refuter.'],
  ['the fixer', (a) => ({ ...minimal(), fixer: a }), 'fixer.'],
];

const BAD_CONFIGS: [string, unknown][] = [
  ['no reviewers key', {}],
  ['an empty reviewer list', { reviewers: [] }],
  ['an unknown top-level key', { ...minimal(), reviewrs: [] }],
  ['rounds as a string', { ...minimal(), budgets: { rounds: '5' } }],
  ['fractional rounds', { ...minimal(), budgets: { rounds: 2.5 } }],
  ['rounds above 100', { ...minimal(), budgets: { rounds: 101 } }],
  ['negative cost', { ...minimal(), budgets: { costUsd: -1 } }],
  ['stopWindow 0', { ...minimal(), policy: { stopWindow: 0 } }],
  ['shrinkRatio 0', { ...minimal(), policy: { shrinkRatio: 0 } }],
  ['shrinkRatio above 1', { ...minimal(), policy: { shrinkRatio: 1.5 } }],
  ['retry attempts 0', { ...minimal(), retry: { attempts: 0 } }],
  ['a reviewer name with a space', { reviewers: [{ name: 'my reviewer', command: cmd }] }],
  ['a check without run', { ...minimal(), checks: [{ name: 'unit' }] }],
  ['a check with a shell key', { ...minimal(), checks: [{ name: 'u', run: ['x'], shell: true }] }],
  ['prices without output', { reviewers: [{ name: 'a', command: cmd, prices: { inputPerMTok: 1 } }] }],
  ['a GitLab review event (GitLab has none)', { ...minimal(), publish: { gitlab: { event: 'COMMENT' } } }],
  ['an unknown review event', { ...minimal(), publish: { github: { event: 'APPROVE' } } }],
  ['an unknown forge under publish', { ...minimal(), publish: { bitbucket: {} } }],
  ['not an object', 'reviewers: []'],
];

describe('the shipped JSON Schema of revloop.config.yaml', () => {
  it('is generated from the config schema (run npm run build to refresh it)', () => {
    const { $id: _id, title: _title, ...rest } = shipped;
    expect(rest).toEqual(JSON.parse(JSON.stringify(configJsonSchema())));
  });

  describe('rejects every agent the loader rejects, in every role', () => {
    for (const [role, place, prefix] of ROLES)
      it.each(BAD_AGENTS)(`${role}: %s`, (_n, agent, key) => {
        const config = place(agent);
        const r = parseConfig(config);
        expect(r.ok).toBe(false);
        if (!r.ok) expect(r.path).toBe(`${prefix}${key}`);
        expect(validate(config)).toBe(false);
      });
  });

  describe('accepts every agent the loader accepts, in every role', () => {
    for (const [role, place] of ROLES)
      it.each(GOOD_AGENTS)(`${role}: %s`, (_n, agent) => {
        const config = place(agent);
        expect(parseConfig(config).ok).toBe(true);
        expect(validate(config), JSON.stringify(validate.errors)).toBe(true);
      });
  });

  it.each(BAD_CONFIGS)('rejects what the loader rejects: %s', (_n, config) => {
    expect(parseConfig(config).ok).toBe(false);
    expect(validate(config)).toBe(false);
  });

  it('accepts the starter config and one with every section', () => {
    const starter = parse('criteria: REVIEW.md\nreviewers:\n  - { name: a, command: [node, r.mjs] }\n');
    // Every section given, each key at a value the loader accepts.
    const full = {
      criteria: 'docs/REVIEW.md',
      store: 'postgres://ci@db/revloop',
      reviewers: [{ name: 'standards', adapter: 'openai', baseURL: 'http://127.0.0.1:8080/v1', model: 'm' }],
      refuter: {
        adapter: 'anthropic',
        model: 'm',
        maxTokens: 2000,
        prices: { inputPerMTok: 3, outputPerMTok: 15 },
      },
      fixer: { adapter: 'codex', instructions: 'keep it small' },
      checks: [{ name: 'unit', run: ['npm', 'test'], timeoutSeconds: 120 }],
      budgets: { rounds: 100, wallSeconds: 60, costUsd: 0 },
      timeouts: { callSeconds: 30 },
      retry: { attempts: 10, baseDelayMs: 0, maxDelayMs: 1 },
      policy: { requireScenario: false, scopeLock: false, stopWindow: 1, shrinkRatio: 1 },
      keys: ['.revloop/trusted/team.pub'],
      protect: ['ci/**'],
      admission: { maxActive: 4, costBudgetUsd: 50, costWindowSeconds: 3600 },
      publish: {
        github: { event: 'REQUEST_CHANGES', suggestions: false, suggestionLines: 5, incomplete: 'failure' },
        gitlab: { suggestions: true, incomplete: 'neutral' },
      },
    };
    for (const c of [starter, full]) {
      expect(parseConfig(c).ok).toBe(true);
      expect(validate(c), JSON.stringify(validate.errors)).toBe(true);
    }
  });

  it('says in a description what it cannot state: unique reviewer names', () => {
    const dup = {
      reviewers: [
        { name: 'a', command: cmd },
        { name: 'a', command: cmd },
      ],
    };
    expect(parseConfig(dup)).toEqual({
      ok: false,
      path: 'reviewers.1.name',
      message: 'duplicate reviewer name "a"',
    });
    // JSON Schema's uniqueItems compares whole items, not one property, so the schema accepts it and says so.
    expect(validate(dup)).toBe(true);
    expect(shipped.properties.reviewers.description).toMatch(/names must be unique/);
  });

  it("the loader's messages still name the key", () => {
    expect(() =>
      parseConfigText('reviewers:\n  - { name: a, adapter: scripted }\n', 'revloop.config.yaml'),
    ).toThrow('revloop.config.yaml: reviewers.0.script: adapter "scripted" needs "script"');
    expect(() =>
      parseConfigText('reviewers: [{ name: a, command: [x] }]\nrefuter: {}\n', 'revloop.config.yaml'),
    ).toThrow('revloop.config.yaml: refuter.command: adapter "command" needs "command"');
  });
});
