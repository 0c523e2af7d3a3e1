/** Where a repository's revloop config lives, in the order they are looked for (kept apart from the schema so `verify` loads no zod). */
export const CONFIG_NAMES = ['revloop.config.yaml', 'revloop.config.yml', 'revloop.config.json'] as const;
