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

/** GitHub's review event when blockers stand (`publish.github.event`, `--event`); never APPROVE. */
export const REVIEW_EVENTS = ['COMMENT', 'REQUEST_CHANGES'] as const;
export type ReviewEvent = (typeof REVIEW_EVENTS)[number];

/** The check of a run that did not complete (`publish.*.incomplete`, `--incomplete`): never success. */
export const INCOMPLETE_CONCLUSIONS = ['neutral', 'failure'] as const;
export type IncompleteConclusion = (typeof INCOMPLETE_CONCLUSIONS)[number];

/**
 * Loop Lab's U4 rule (`sim --stop-rule`, the lab page): the live loop's
 * evidence of progress, or the seed's rate rule on the blocking count. In
 * core because `analyze` reports which one it applied as well.
 */
export const STOP_RULES = ['evidence', 'count'] as const;
export type StopRule = (typeof STOP_RULES)[number];
