import m001 from './001-initial.js';
import m002 from './002-settlement-content.js';
import m003 from './003-judgements.js';
import m004 from './004-attempt-confined.js';
import m005 from './005-reruns.js';
import m006 from './006-ledger-artifacts.js';
import m007 from './007-deliveries.js';
import m008 from './008-verdict-reuse.js';

/** Numbered PostgreSQL migrations, applied in order under an advisory lock. Never edit an applied one. */
export const PG_MIGRATIONS: readonly { version: number; name: string; sql: string }[] = [
  { version: 1, name: 'initial', sql: m001 },
  { version: 2, name: 'settlement-content', sql: m002 },
  { version: 3, name: 'judgements', sql: m003 },
  { version: 4, name: 'attempt-confined', sql: m004 },
  { version: 5, name: 'reruns', sql: m005 },
  { version: 6, name: 'ledger-artifacts', sql: m006 },
  { version: 7, name: 'deliveries', sql: m007 },
  { version: 8, name: 'verdict-reuse', sql: m008 },
];
