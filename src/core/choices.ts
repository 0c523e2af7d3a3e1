/**
 * Fixed choices a person names on the command line or the dashboard, listed
 * once: the CLI's `.choices`, the operations' checks and the types read them.
 * No imports, so the CLI can load it before any command.
 */

/** A named person's decision on a finding (invariant 16). */
export const SETTLE_DECISIONS = ['upheld', 'overturned'] as const;
export type SettleDecision = (typeof SETTLE_DECISIONS)[number];

/** Where the config and the criteria are read from (DESIGN: the base, by default). */
export const CONFIG_SOURCES = ['base', 'head'] as const;
export type ConfigSource = (typeof CONFIG_SOURCES)[number];
