/**
 * What a model call's tokens cost. Cached input is priced
 * apart from uncached input: a cache read is cheaper, a cache write dearer.
 * Where a price is not configured the cost is never under-counted: a read is
 * priced as input, a write at Anthropic's 5-minute rate (1.25 × input).
 */

export interface TokenPrices {
  inputPerMTok: number;
  outputPerMTok: number;
  cachedInputPerMTok?: number | undefined;
  cacheWritePerMTok?: number | undefined;
}

/** Input tokens by how the endpoint's prompt cache treated them, and output tokens. */
export interface TokenUsage {
  /** Input tokens neither read from nor written to a cache. */
  inputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  outputTokens: number;
}

/** The multiple of the input price a cache write costs when its price is not configured. */
export const DEFAULT_CACHE_WRITE_FACTOR = 1.25;

/** USD for a call's tokens at per-million-token prices; 0 when no prices are configured. */
export function usageCost(prices: TokenPrices | undefined, u: TokenUsage): number {
  if (!prices) return 0;
  const read = prices.cachedInputPerMTok ?? prices.inputPerMTok;
  const write = prices.cacheWritePerMTok ?? prices.inputPerMTok * DEFAULT_CACHE_WRITE_FACTOR;
  return (
    (u.inputTokens * prices.inputPerMTok +
      u.cacheReadTokens * read +
      u.cacheWriteTokens * write +
      u.outputTokens * prices.outputPerMTok) /
    1_000_000
  );
}

/** One line for the attempt's record: how many tokens of each kind the call used. */
export function describeUsage(u: TokenUsage): string {
  return `tokens: input ${u.inputTokens} uncached, ${u.cacheReadTokens} cache read, ${u.cacheWriteTokens} cache write; output ${u.outputTokens}`;
}
