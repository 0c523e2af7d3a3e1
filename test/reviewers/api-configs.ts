/**
 * The two API adapters as their tests configure them against the fault
 * server: an openai reviewer `standards` whose key is in
 * REVLOOP_TEST_OPENAI_KEY, an anthropic refuter under its default key name.
 */
import type { ReviewerConfig } from '../../src/core/config.js';
import type { FaultServer } from '../helpers/fault-server.js';

export const openaiConfig = (server: FaultServer, over: Partial<ReviewerConfig> = {}): ReviewerConfig => ({
  name: 'standards',
  adapter: 'openai',
  baseURL: server.openaiBaseURL,
  model: 'gpt-pinned',
  apiKeyEnv: 'REVLOOP_TEST_OPENAI_KEY',
  prices: { inputPerMTok: 2, outputPerMTok: 8 },
  ...over,
});

export const anthropicConfig = (server: FaultServer, over: Partial<ReviewerConfig> = {}): ReviewerConfig => ({
  name: 'refuter',
  adapter: 'anthropic',
  baseURL: server.anthropicBaseURL,
  model: 'claude-pinned',
  prices: { inputPerMTok: 3, outputPerMTok: 15 },
  ...over,
});
