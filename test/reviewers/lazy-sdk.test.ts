import { describe, expect, it, vi } from 'vitest';

// Tripwires: if loading the factory pulled in a provider SDK, these factories would run and throw.
vi.mock('openai', () => {
  throw new Error('openai was loaded eagerly');
});
vi.mock('@anthropic-ai/sdk', () => {
  throw new Error('@anthropic-ai/sdk was loaded eagerly');
});

describe('reviewers/index', () => {
  it('loads without loading openai or @anthropic-ai/sdk', async () => {
    const mod = await import('../../src/reviewers/index.js');
    expect(typeof mod.createReviewer).toBe('function');
    const rev = mod.createReviewer(
      { adapter: 'openai', model: 'm', baseURL: 'http://127.0.0.1:1/v1' },
      { role: 'reviewer', name: 'x', repoRoot: '/', env: {} },
    );
    expect(rev.name).toBe('x');
  });
});
