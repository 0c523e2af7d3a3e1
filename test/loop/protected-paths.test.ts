/**
 * Which repository files a change may not edit without a named person
 * (DESIGN.md, configuration contract): the config, the criteria, and the
 * files the config really names (agent scripts and commands, keys, `protect`).
 * A check's arguments are evidence commands, not files the review trusts.
 */
import { describe, expect, it } from 'vitest';
import { protectedPaths } from '../../src/config/loader.js';
import { parseConfigText } from '../../src/config/parse.js';

const loaded = (yaml: string) => ({
  config: parseConfigText(yaml, 'revloop.config.yaml'),
  configPath: 'revloop.config.yaml',
  configDigest: 'd',
  criteria: '',
  criteriaDigest: 'c',
  source: 's',
});

describe('protected paths (issue 15, point 20)', () => {
  it('check arguments that contain a slash do not become protected paths', () => {
    const paths = protectedPaths(
      loaded(`criteria: REVIEW.md
reviewers:
  - name: correctness
    command: [node, tools/review.mjs, --role, correctness]
checks:
  - { name: unit, run: [node, --test, test/calc.test.js] }
  - { name: lint, run: [npx, eslint, src/lib, ./scripts/lint.sh] }
`),
    );
    expect(paths).toEqual(['REVIEW.md', 'revloop.config.yaml', 'tools/review.mjs']);
  });

  it('agent scripts, keys and protect stay protected', () => {
    const paths = protectedPaths(
      loaded(`criteria: docs/REVIEW.md
reviewers:
  - { name: s, adapter: scripted, script: ./review/script.json }
fixer: { command: [python3, fix.py] }
keys: [keys/ci.pub]
protect: [SECURITY.md]
`),
    );
    expect(paths).toEqual([
      'SECURITY.md',
      'docs/REVIEW.md',
      'fix.py',
      'keys/ci.pub',
      'review/script.json',
      'revloop.config.yaml',
    ]);
  });
});
