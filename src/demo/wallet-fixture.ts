/**
 * The demo's fixture: a tiny wallet module whose change introduces a real
 * lost update across an `await`, a check that catches it, and review criteria.
 */

export const CRITERIA = `# Review criteria

R1. Concurrency: a read-modify-write of shared state must not span an \`await\`; another task can
    run in between and its write is lost.
R2. No module-level mutable state: state lives in the objects that own it.
R3. Errors are propagated to the caller, never swallowed.
R4. Every public method has a one-line comment saying why it exists.
`;

export const WALLET_BASE = `// A wallet over an async key-value store.
export class Wallet {
  constructor(store) {
    this.store = store;
  }

  // Deposits go through the store's atomic update, so concurrent deposits add up.
  async deposit(user, amount) {
    await this.store.update(user, (balance) => balance + amount);
  }

  // Balance as the store sees it now.
  async balance(user) {
    return this.store.get(user);
  }
}
`;

/** The change: credit() reads, awaits the audit log, then writes: a lost update (R1). */
export const WALLET_HEAD = `// A wallet over an async key-value store.
import { audit } from './audit.js';

export class Wallet {
  constructor(store) {
    this.store = store;
  }

  // Deposits go through the store's atomic update, so concurrent deposits add up.
  async deposit(user, amount) {
    await this.store.update(user, (balance) => balance + amount);
  }

  // Credits a refund and writes it to the audit log.
  async credit(user, amount) {
    const balance = await this.store.get(user);
    await audit(user, amount);
    await this.store.set(user, balance + amount);
  }

  // Balance as the store sees it now.
  async balance(user) {
    return this.store.get(user);
  }
}
`;

/** The fix: the audit is awaited first, then one atomic update. */
export const WALLET_FIXED = WALLET_HEAD.replace(
  `    const balance = await this.store.get(user);
    await audit(user, amount);
    await this.store.set(user, balance + amount);`,
  `    await audit(user, amount);
    await this.store.update(user, (balance) => balance + amount);`,
);

/** The oscillation scenario's first fix: a module-level lock (fixes R1, trips R2). */
export const WALLET_GLOBAL_LOCK = WALLET_HEAD.replace(
  `export class Wallet {`,
  `let busy = Promise.resolve(); // serialises credits across all wallets

export class Wallet {`,
).replace(
  `    const balance = await this.store.get(user);
    await audit(user, amount);
    await this.store.set(user, balance + amount);`,
  `    const run = busy.then(async () => {
      const balance = await this.store.get(user);
      await audit(user, amount);
      await this.store.set(user, balance + amount);
    });
    busy = run.catch(() => {});
    await run;`,
);

/** The oscillation scenario's second "fix": the same lock under another name, still module-level. */
export const WALLET_GLOBAL_LOCK_RENAMED = WALLET_GLOBAL_LOCK.replaceAll('busy', 'queue').replace(
  'serialises credits across all wallets',
  'one queue for every wallet',
);

/** ...and a third: the same state hidden in a Map keyed by nothing. */
export const WALLET_GLOBAL_LOCK_MAP = WALLET_GLOBAL_LOCK.replace(
  `let busy = Promise.resolve(); // serialises credits across all wallets`,
  `const locks = new Map([['all', Promise.resolve()]]); // shared by every wallet`,
)
  .replace(`const run = busy.then(`, `const run = locks.get('all').then(`)
  .replace(`busy = run.catch(() => {});`, `locks.set('all', run.catch(() => {}));`);

export const AUDIT = `// The audit log: slow, and it yields, like any I/O.
export async function audit(user, amount) {
  await new Promise((resolve) => setTimeout(resolve, 5));
  return { user, amount };
}
`;

export const STORE = `// An in-memory async store with an atomic update.
export class MemoryStore {
  constructor() {
    this.data = new Map();
  }
  async get(key) {
    await Promise.resolve();
    return this.data.get(key) ?? 0;
  }
  async set(key, value) {
    await Promise.resolve();
    this.data.set(key, value);
  }
  async update(key, fn) {
    this.data.set(key, fn(this.data.get(key) ?? 0));
  }
}
`;

/** The check: two concurrent credits must both land. Exit 1 on a lost update. */
export const CHECK = `import { MemoryStore } from '../src/store.js';
import { Wallet } from '../src/wallet.js';

const wallet = new Wallet(new MemoryStore());
if (typeof wallet.credit !== 'function') process.exit(0);
await Promise.all([wallet.credit('alice', 10), wallet.credit('alice', 10)]);
const balance = await wallet.balance('alice');
if (balance !== 20) {
  console.error(\`lost update: two credits of 10 left a balance of \${balance}, expected 20\`);
  process.exit(1);
}
console.log('credits add up: balance 20');
`;
