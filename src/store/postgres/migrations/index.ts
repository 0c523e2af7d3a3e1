import m001 from './001-initial.js';

/** Numbered PostgreSQL migrations, applied in order under an advisory lock. Never edit an applied one. */
export const PG_MIGRATIONS: readonly { version: number; name: string; sql: string }[] = [
  { version: 1, name: 'initial', sql: m001 },
];
