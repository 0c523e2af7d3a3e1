/**
 * The scripted agents of the two demo scenarios: what each reviewer, the
 * refuter and the fixer say, round by round. Line numbers are computed from
 * the fixture text so they always point at the code they talk about.
 */
import {
  CHECK,
  WALLET_FIXED,
  WALLET_GLOBAL_LOCK,
  WALLET_GLOBAL_LOCK_MAP,
  WALLET_GLOBAL_LOCK_RENAMED,
  WALLET_HEAD,
} from './wallet-fixture.js';

const lineOf = (text: string, needle: string): number => {
  const i = text.split('\n').findIndex((l) => l.includes(needle));
  if (i < 0) throw new Error(`demo fixture: "${needle}" not found`);
  return i + 1;
};

const pass = { reply: { verdict: 'pass', findings: [] as unknown[], usage: { costUsd: 0.0021 } } };
const findings = (...f: unknown[]) => ({
  reply: { verdict: 'findings', findings: f, usage: { costUsd: 0.0034 } },
});
const upheld = (when: string, reason: string) => ({
  when,
  reply: { decision: 'upheld', reason, usage: { costUsd: 0.0012 } },
});
const refuted = (when: string, reason: string) => ({
  when,
  reply: { decision: 'refuted', reason, usage: { costUsd: 0.0012 } },
});
const fix = (content: string) => ({
  reply: { disputed: [], usage: { costUsd: 0.006 } },
  write: { 'src/wallet.js': content },
});

const RACE_CLAIM =
  'credit() reads the balance, awaits audit(), then writes balance + amount: a credit that runs in between is lost';
const raceFinding = (text: string) => ({
  severity: 'MAJOR',
  file: 'src/wallet.js',
  line: lineOf(text, 'const balance = await this.store.get(user);'),
  endLine: lineOf(text, 'await this.store.set(user, balance + amount);'),
  claim: RACE_CLAIM,
  failureScenario:
    'Two concurrent credit("alice", 10) calls on a balance of 0 both read 0 before either writes; both write 10, so the balance ends at 10 instead of 20 (the credits-add-up check shows it).',
  violatedClause: 'R1',
});

/** Default: a concrete MAJOR fixed in one round, a vague MODERATE demoted, a plausible but wrong MODERATE refuted. */
export function defaultScript() {
  return {
    correctness: { '1': findings(raceFinding(WALLET_HEAD)), '2': pass },
    standards: {
      '1': findings({
        severity: 'MODERATE',
        file: 'src/wallet.js',
        line: lineOf(WALLET_HEAD, '// Credits a refund'),
        claim: 'The comment on credit() could be clearer about refunds.',
        failureScenario: 'This could cause issues.',
      }),
      '2': pass,
    },
    annotations: {
      '1': findings({
        severity: 'MODERATE',
        file: 'src/wallet.js',
        line: lineOf(WALLET_HEAD, 'await audit(user, amount);'),
        claim:
          'credit() writes the audit entry before the balance is stored, so the audit log can show a credit that never happened',
        failureScenario:
          'store.set rejects after audit("alice", 10) resolved: the audit log shows a credit of 10 while the balance is unchanged.',
      }),
      '2': pass,
    },
    refuter: {
      '1': [
        upheld(
          'Claim: credit() reads the balance',
          'Confirmed on the diff: get, await, set is a read-modify-write across an await (R1).',
        ),
        refuted(
          'Claim: credit() writes the audit entry',
          'The audit log records attempted credits by design; a failed set() propagates to the caller (R3). Nothing in the criteria asks the audit log to match balances, so no wrong outcome follows.',
        ),
      ],
    },
    fixer: { '1': fix(WALLET_FIXED) },
  };
}

/** Oscillation: the fix for correctness trips standards; the scope lock holds one re-raise; the stop rule ends the rest. */
export function oscillationScript() {
  const lockFinding = (text: string, needle: string, claim: string, severity = 'MAJOR') => ({
    severity,
    file: 'src/wallet.js',
    line: lineOf(text, needle),
    claim,
    failureScenario:
      'Two Wallet instances over different stores now wait on each other: a slow audit for one user stalls credits for every user of every wallet.',
    violatedClause: 'R2',
  });
  return {
    correctness: { '1': findings(raceFinding(WALLET_HEAD)), '*': pass },
    standards: {
      '1': pass,
      '2': findings(
        lockFinding(
          WALLET_GLOBAL_LOCK,
          'let busy',
          'The module-level `busy` promise is mutable state shared by every Wallet',
        ),
        {
          severity: 'MAJOR',
          file: 'src/wallet.js',
          line: lineOf(WALLET_GLOBAL_LOCK, 'await this.store.update(user, (balance) => balance + amount);'),
          claim: 'deposit() accepts negative amounts',
          failureScenario: 'deposit("alice", -5) lowers the balance: a deposit can withdraw money.',
        },
      ),
      '3': findings(
        lockFinding(
          WALLET_GLOBAL_LOCK_RENAMED,
          'let queue',
          'A module-level `queue` still serialises every wallet through shared state',
        ),
      ),
      '4': findings(
        lockFinding(
          WALLET_GLOBAL_LOCK_MAP,
          'const locks',
          'The shared lock moved into a module-level Map; it is still global state',
          'MODERATE',
        ),
      ),
      '*': pass,
    },
    annotations: { '*': pass },
    refuter: {
      '*': [
        upheld('Claim: credit() reads the balance', 'Confirmed: read-modify-write across an await (R1).'),
        upheld(
          'module-level',
          'Confirmed: the lock lives at module level and is shared by all wallets (R2).',
        ),
        upheld('shared lock', 'Confirmed: a module-level Map is module-level state (R2).'),
      ],
    },
    fixer: {
      '1': fix(WALLET_GLOBAL_LOCK),
      '2': fix(WALLET_GLOBAL_LOCK_RENAMED),
      '3': fix(WALLET_GLOBAL_LOCK_MAP),
    },
  };
}

export const CHECK_FILE = CHECK;
