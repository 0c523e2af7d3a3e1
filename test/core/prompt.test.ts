import { describe, expect, it } from 'vitest';
import {
  fixerPrompt,
  PROMPT_TEMPLATE_VERSION,
  refuterPrompt,
  reviewerPrompt,
  TEMPLATES,
} from '../../src/core/prompt.js';
import type { ReportedFinding } from '../../src/core/types.js';
import { sha256 } from '../../src/io/hash.js';

const claim: ReportedFinding = {
  severity: 'MAJOR',
  file: 'src/cart.ts',
  line: 10,
  endLine: 12,
  claim: 'total() returns NaN',
  failureScenario: 'an empty cart is charged NaN',
};

// Invariant 6: the prompt is hashed into the call key, so it must be a pure function of frozen inputs.
describe('invariant 6: prompts are pure functions of frozen inputs', () => {
  it('the same inputs give byte-identical prompts, and any input changes them', () => {
    const p = { reviewer: 'correctness', criteria: 'R1: cents', diff: '+a', hash: sha256 };
    expect(reviewerPrompt(p)).toBe(reviewerPrompt({ ...p }));
    for (const k of ['reviewer', 'criteria', 'diff'] as const)
      expect(reviewerPrompt({ ...p, [k]: `${p[k]}x` })).not.toBe(reviewerPrompt(p));
    expect(reviewerPrompt({ ...p, instructions: 'be strict' })).toContain(
      '## Instructions for correctness\nbe strict',
    );
    expect(reviewerPrompt(p)).toContain(PROMPT_TEMPLATE_VERSION);
  });

  it('the refuter sees only the criteria, the diff and the one claim', () => {
    const text = refuterPrompt({ criteria: 'R1: cents', diff: '+a', claim, hash: sha256 });
    expect(text).toContain('File: src/cart.ts:10-12');
    expect(text).toContain('Failure scenario: an empty cart is charged NaN');
    expect(text).toContain('Violated clause: (none given)');
    expect(text).not.toContain('correctness');
    expect(text).toContain(TEMPLATES.refuter);
  });

  it('the fixer gets every blocker with its id', () => {
    const text = fixerPrompt({
      criteria: 'R1',
      diff: '+a',
      hash: sha256,
      blockers: [
        { id: 'f1', finding: claim },
        { id: 'f2', finding: { ...claim, endLine: undefined, line: 40 } },
      ],
    });
    expect(text).toContain('- id: f1\n  MAJOR src/cart.ts:10-12');
    expect(text).toContain('- id: f2\n  MAJOR src/cart.ts:40\n');
    expect(text).toContain(TEMPLATES.fixer);
  });
});
