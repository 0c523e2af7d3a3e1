/**
 * The CI gate (invariant 14): checks a signed record against a checkout and
 * returns a result; it prints nothing and never throws for a bad record.
 *
 * Order: envelope shape, signature by a key the verifier chose (never one the
 * record names), statement shape and version, then the checkout (subject ==
 * HEAD, diff digest of mergeBase..HEAD, mergeBase == the target's merge base,
 * criteria digest at the record's base), then policy
 * (status completed, outcome clear unless findings are allowed). Nothing here
 * loads a model SDK, a database driver, zod or the web server: verify is the
 * fast path of every CI job.
 */
import { type Coverage, uncovered } from '../core/coverage.js';
import { RevloopError, UntrustedInputError } from '../core/errors.js';
import { type ReuseSummary, reuseLine } from '../core/reuse-summary.js';
import { Outcome, RunStatus, type Snapshot } from '../core/types.js';
import { defaultTrustedRef, resolveUserRef } from '../git/user-ref.js';
import { sha256 } from '../io/hash.js';
import type { GitBlobs, GitDiffs, GitRevisions } from '../ports/git.js';
import type { Verifier } from '../ports/signer.js';
import { checkSignatures, IN_TOTO_PAYLOAD_TYPE, parseEnvelope } from './dsse.js';
import { loadVerifiers } from './keys.js';
import {
  type AsRead,
  PREDICATE_TYPE,
  PREDICATE_VERSION,
  type ReviewPredicate,
  STATEMENT_TYPE,
} from './statement.js';
import { readFileNoFollow, type TrustedKeys, trustedKeys } from './trusted-keys.js';

export const VerifyCode = {
  ok: 'ok',
  /** Policy (exit 1). */
  not_completed: 'not_completed',
  findings: 'findings',
  /** A file not ignored that some reviewer never saw. */
  incomplete_coverage: 'incomplete_coverage',
  /** Mismatch with the checkout (exit 3). */
  subject_mismatch: 'subject_mismatch',
  diff_mismatch: 'diff_mismatch',
  criteria_mismatch: 'criteria_mismatch',
  /** Bad signature, key or format (exit 4). */
  bad_signature: 'bad_signature',
  unknown_key: 'unknown_key',
  malformed: 'malformed',
  /** The record or a key file cannot be read, or the checkout is unusable (exit 2). */
  usage: 'usage',
  /** The record covers less than the target's merge base to its subject (exit 13). */
  narrow_record: 'narrow_record',
  /** A ref the verifier gave names two refs (a tag beside the branch): refused, never guessed (exit 12). */
  untrusted_input: 'untrusted_input',
  /** `--require-confined` and the run's processes did not all run confined (exit 14). */
  not_confined: 'not_confined',
  /** `--no-reuse` and the record says verdicts were reused from earlier calls (exit 16). */
  reused_verdicts: 'reused_verdicts',
} as const;
export type VerifyCode = (typeof VerifyCode)[keyof typeof VerifyCode];

/** The exit code of each result code (DESIGN.md, command-line contract). */
export const VERIFY_EXIT: Record<VerifyCode, number> = {
  ok: 0,
  not_completed: 1,
  findings: 1,
  incomplete_coverage: 1,
  subject_mismatch: 3,
  diff_mismatch: 3,
  criteria_mismatch: 3,
  bad_signature: 4,
  unknown_key: 4,
  malformed: 4,
  usage: 2,
  untrusted_input: 12,
  narrow_record: 13,
  not_confined: 14,
  reused_verdicts: 16,
};

export interface VerifyResult {
  ok: boolean;
  code: VerifyCode;
  /** One line, e.g. "record covers 1a2b3c4, checkout HEAD is 5d6e7f8". */
  reason: string;
  runId: string | null;
  /** The commit the record covers (its subject), once known. */
  head: string | null;
  outcome: string | null;
  /** The trusted key that verified the signature, once known. */
  keyId: string | null;
}

export interface VerifyOptions {
  /** Verify only reads: revisions, the diff and files at commits. */
  git: GitRevisions & GitDiffs & GitBlobs;
  /** Any directory inside the checkout. */
  repo: string;
  /** Trusted public key files; when given, nothing else is trusted. */
  keys?: string[] | undefined;
  /** Read the config's trusted keys at this ref (CI: the target branch); default: the checkout's default trusted ref. */
  keysFrom?: string | undefined;
  /**
   * The branch the change merges into: the record must start at its merge
   * base with the record's subject, or it covers only part of the change.
   * Default: `keysFrom`, else the checkout's default trusted ref.
   */
  target?: string | undefined;
  /** Accept outcome `findings`. */
  allowFindings?: boolean | undefined;
  /** Refuse a record whose run did not run every process confined (predicate `confined`). */
  requireConfined?: boolean | undefined;
  /** Refuse a record that says any verdict was reused from an earlier call (predicate `reused`). */
  noReuse?: boolean | undefined;
  /**
   * The commit the record must cover, instead of the checkout's HEAD: publication
   * checks a record against a pull request's live head, which CI rarely checks out
   * (a `pull_request` job checks out the merge commit).
   */
  subject?: string | undefined;
}

/** The snapshot and predicate keys {@link checkShape} checks before anything reads them. */
const SNAPSHOT_COMMITS = ['base', 'head', 'mergeBase'] as const satisfies readonly (keyof Snapshot)[];
const SNAPSHOT_STRINGS = ['criteriaPath', 'criteriaDigest'] as const satisfies readonly (keyof Snapshot)[];
const PREDICATE_STRINGS = [
  'runId',
  'finalHead',
  'finalDiffDigest',
] as const satisfies readonly (keyof ReviewPredicate)[];
type CheckedSnapshot = (typeof SNAPSHOT_COMMITS)[number] | (typeof SNAPSHOT_STRINGS)[number];
type CheckedPredicate = (typeof PREDICATE_STRINGS)[number] | 'version' | 'status' | 'outcome';

/**
 * The predicate as verify reads it, derived from the writer's type (
 * point 10): every field `buildStatement` writes, the checked ones at the
 * writer's type, the others `unknown` (coverage, configFrom, configPath and
 * reviewers are read only after a check of their own). Generic so a test can
 * show that a field the writer adds reaches this type.
 */
export type VerifiedPredicate<P extends ReviewPredicate = ReviewPredicate> = Omit<
  AsRead<P, CheckedPredicate>,
  'snapshot'
> & { snapshot: AsRead<P['snapshot'], CheckedSnapshot> };
type Predicate = VerifiedPredicate;

const RUN_STATUSES: readonly string[] = Object.values(RunStatus);
const OUTCOMES: readonly string[] = Object.values(Outcome);

const SHA = /^[0-9a-f]{40}([0-9a-f]{24})?$/;
const short = (sha: string): string => sha.slice(0, 7);

/** Reads and verifies a record file. A missing or unreadable file is `usage`. */
export async function verifyRecordFile(path: string, opts: VerifyOptions): Promise<VerifyResult> {
  let text: string;
  try {
    text = readFileNoFollow(path).toString('utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    // O_NOFOLLOW: a record that is a link is read from wherever the link's author chose.
    if (code === 'ELOOP') return fail('usage', `record ${path} is a symlink: never followed`);
    return fail('usage', `cannot read record ${path}: ${code ?? err}`);
  }
  return verifyRecord(text, opts);
}

/** Verifies envelope text against the checkout at `opts.repo`. */
export async function verifyRecord(text: string, opts: VerifyOptions): Promise<VerifyResult> {
  try {
    return await verifyInner(text, opts);
  } catch (err) {
    if (err instanceof UntrustedInputError) return fail('untrusted_input', err.message);
    // A git failure (not a repository, unreadable object) is never a pass.
    if (err instanceof RevloopError) return fail('usage', err.message);
    throw err;
  }
}

/** A settled promise, so concurrent git reads never leave a rejection unhandled. */
type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown };
const settle = <T>(p: Promise<T>): Promise<Settled<T>> =>
  p.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );
const value = <T>(s: Settled<T>): T => {
  if (!s.ok) throw s.error;
  return s.value;
};

async function verifyInner(text: string, opts: VerifyOptions): Promise<VerifyResult> {
  const { git, repo } = opts;
  const parsed = parseEnvelope(text);
  if (!parsed.ok) return fail('malformed', parsed.reason);
  if (parsed.envelope.payloadType !== IN_TOTO_PAYLOAD_TYPE)
    return fail('malformed', `payloadType is ${JSON.stringify(parsed.envelope.payloadType)}`);

  // Parsing before the signature check only tells where the trusted keys
  // live and what to read; no decision trusts the payload before it is verified.
  let statement: Record<string, unknown>;
  try {
    statement = JSON.parse(parsed.body.toString('utf8'));
  } catch {
    return fail('malformed', 'payload is not JSON');
  }
  const shape = checkShape(statement);
  if (typeof shape === 'string') return fail('malformed', shape);
  const p = shape;
  const snap = p.snapshot;
  const known = { runId: p.runId, head: p.finalHead, outcome: p.outcome };

  let explicit: Verifier[] | null = null;
  if (opts.keys && opts.keys.length > 0) {
    try {
      explicit = loadVerifiers(opts.keys);
    } catch (err) {
      return fail('usage', (err as Error).message, known);
    }
  }

  // Every git read starts now and runs concurrently: verify's cost is
  // dominated by git process start-up, not by any one read.
  const criteriaFrom = snap.configFrom === 'head' ? 'head' : 'base';
  const criteriaAt = criteriaFrom === 'head' ? snap.head : snap.base;
  const rootP = settle(git.root(repo));
  const headP = settle(opts.subject ? Promise.resolve(opts.subject) : git.resolve(repo, 'HEAD'));
  const diffP = settle(git.diffDigest(repo, snap.mergeBase, p.finalHead));
  const criteriaP = settle(git.readFile(repo, criteriaAt, snap.criteriaPath));
  // The verifier's refs, never the record's: `--keys-from`, else the checkout's default
  // trusted ref. (The record's own base is the signer's word, read before its signature is.)
  const trustRefP: Promise<NamedCommit | null> = opts.keysFrom
    ? resolveUserRef(git, repo, opts.keysFrom, '--keys-from').then((r) => ({
        sha: r.sha,
        name: opts.keysFrom as string,
      }))
    : defaultTrustedRef(git, repo).then((r) => r && { sha: r.sha, name: r.refname as string });
  trustRefP.catch(() => undefined);
  const targetP = settle(
    (async () => {
      const ref = opts.target
        ? { sha: (await resolveUserRef(git, repo, opts.target, '--target')).sha, name: opts.target }
        : await trustRefP;
      if (!ref) return null;
      return { name: ref.name, mergeBase: await git.mergeBase(repo, ref.sha, p.finalHead) };
    })(),
  );
  const trustP = explicit
    ? null
    : settle(
        (async () => {
          const ref = await trustRefP;
          if (!ref) throw new NoTrustedRef();
          const trustSha = ref.sha;
          const root = rootP.then(value);
          const head = headP.then(value);
          // The config file is found by its usual names: a record's `configPath` would let the
          // signer point at any file of the trusted commit that has a `keys:` list.
          return trustedKeys(git, { repo, root, head, trustSha }).catch((err: unknown) => {
            // A failing root or HEAD is reported as itself below (it is awaited first).
            throw new KeysUnreadable(trustSha, err);
          });
        })(),
      );

  value(await rootP);
  const checkoutHead = value(await headP);
  let trusted: Verifier[];
  let skipped: string[] = [];
  if (explicit) trusted = explicit;
  else {
    const t = await (trustP as Promise<Settled<TrustedKeys>>);
    if (!t.ok && t.error instanceof NoTrustedRef) return fail('usage', t.error.message, known);
    if (!t.ok) {
      const foreign =
        t.error instanceof KeysUnreadable ? await foreignRecord(git, repo, snap.base, p.finalHead) : null;
      if (foreign) return fail('subject_mismatch', foreign, known);
      if (t.error instanceof KeysUnreadable)
        return fail(
          'unknown_key',
          `cannot read trusted keys at ${short(t.error.sha)}: ${(t.error.cause as Error)?.message ?? t.error.cause} (fetch full history, or pass --key)`,
          known,
        );
      throw t.error;
    }
    trusted = t.value.verifiers;
    skipped = t.value.skipped;
  }
  const sig = checkSignatures(parsed.envelope.payloadType, parsed.body, parsed.sigs, trusted);
  if (!sig.ok) {
    // A record of another repository is said as a mismatch with the checkout, not as a key problem.
    const foreign = await foreignRecord(git, repo, snap.base, p.finalHead);
    if (foreign) return fail('subject_mismatch', foreign, known);
    const note = sig.code === 'unknown_key' && skipped.length ? ` (not trusted: ${skipped.join('; ')})` : '';
    return fail(sig.code, sig.reason + note, known);
  }
  const signed = { ...known, keyId: sig.keyId };

  if (p.finalHead !== checkoutHead)
    return fail(
      'subject_mismatch',
      `record covers ${short(p.finalHead)}, checkout HEAD is ${short(checkoutHead)}`,
      signed,
    );
  const diff = await diffP;
  const foreign = diff.ok ? null : await foreignRecord(git, repo, snap.mergeBase, p.finalHead);
  if (foreign) return fail('subject_mismatch', foreign, signed);
  if (!diff.ok)
    return fail(
      'diff_mismatch',
      `cannot diff ${short(snap.mergeBase)}..${short(checkoutHead)} (${(diff.error as Error)?.message ?? diff.error}; fetch full history)`,
      signed,
    );
  if (diff.value !== p.finalDiffDigest)
    return fail(
      'diff_mismatch',
      `diff ${short(snap.mergeBase)}..${short(checkoutHead)} hashes to ${diff.value.slice(0, 12)}, record says ${p.finalDiffDigest.slice(0, 12)}`,
      signed,
    );
  // A record of the last commit only (`review --base HEAD~1`) is signed and matches its diff,
  // but leaves the rest of the change unreviewed: it must start where the target branch and
  // the subject meet.
  const target = await targetP;
  if (!target.ok) {
    if (target.error instanceof UntrustedInputError)
      return fail('untrusted_input', target.error.message, signed);
    return fail(
      'usage',
      `cannot find the target's merge base: ${(target.error as Error)?.message ?? target.error}`,
      signed,
    );
  }
  if (!target.value)
    return fail(
      'usage',
      'no target branch to check the record against: pass --target REF (or --keys-from REF)',
      signed,
    );
  if (target.value.mergeBase !== snap.mergeBase)
    return fail(
      'narrow_record',
      `record starts at ${short(snap.mergeBase)}, but the change merges into ${target.value.name} from ${short(target.value.mergeBase)}: it does not cover the whole change`,
      signed,
    );
  // The criteria in force are those of the base commit (DESIGN.md: a change
  // cannot relax its own review), or of the reviewed head when the run was
  // told to read config from there; the digest is recomputed at that commit.
  const criteria = await criteriaP;
  if (!criteria.ok || !criteria.value)
    return fail(
      'criteria_mismatch',
      `criteria ${snap.criteriaPath} not found at ${criteriaFrom} ${short(criteriaAt)}`,
      signed,
    );
  const digest = sha256(criteria.value);
  if (digest !== snap.criteriaDigest)
    return fail(
      'criteria_mismatch',
      `criteria ${snap.criteriaPath} at ${criteriaFrom} ${short(criteriaAt)} hashes to ${digest.slice(0, 12)}, record says ${snap.criteriaDigest.slice(0, 12)}`,
      signed,
    );

  if (opts.requireConfined && p.confined !== true)
    return fail(
      'not_confined',
      `run ${p.runId} ran ${p.confined === false ? 'unconfined' : 'before confinement was recorded'}, and --require-confined was given`,
      signed,
    );
  if (opts.noReuse && p.reused !== undefined)
    return fail(
      'reused_verdicts',
      `run ${p.runId}: ${reusedLineOf(p.reused)}, and --no-reuse was given`,
      signed,
    );
  if (p.status !== 'completed')
    return fail('not_completed', `run ${p.runId} ended ${p.status}, not completed`, signed);
  const gap = coverageGap(p);
  if (gap) return fail('incomplete_coverage', `run ${p.runId}: ${gap}`, signed);
  if (p.outcome !== 'clear' && !(p.outcome === 'findings' && opts.allowFindings))
    return fail('findings', `run ${p.runId} ended with outcome ${p.outcome}`, signed);
  return {
    ok: true,
    code: 'ok',
    reason: `record ${p.runId} covers ${short(p.finalHead)}, outcome ${p.outcome}${ignoredNote(p)}`,
    ...signed,
  };
}

/** A clear that left files out by the config's ignore rules says so (no partial review goes unsaid). */
function ignoredNote(p: Predicate): string {
  const cov = p.coverage as Record<string, Partial<Coverage>> | null | undefined;
  const ignored = cov ? Object.values(cov)[0]?.ignored : undefined;
  return Array.isArray(ignored) && ignored.length > 0
    ? `, ${ignored.length} file(s) left out by the config's ignore rules`
    : '';
}

/**
 * What the record's coverage leaves unreviewed, in one line, or null.
 * A record made before coverage existed has none (one call saw the whole diff).
 */
function coverageGap(p: Predicate): string | null {
  if (p.coverage === undefined) return null;
  const cov = p.coverage as Record<string, Coverage> | null;
  const reviewers = p.snapshot.reviewers;
  if (!Array.isArray(reviewers)) return 'snapshot.reviewers is not a list';
  const names = reviewers.map((r: { name?: unknown } | null) => String(r?.name));
  if (typeof cov !== 'object' || cov === null) return 'predicate.coverage is not an object';
  for (const name of names) {
    const c = cov[name];
    if (!c || !Array.isArray(c.files) || !Array.isArray(c.reviewed))
      return `reviewer ${name} has no coverage in the record`;
    const missed = uncovered(c);
    if (missed.length > 0)
      return `reviewer ${name} did not review ${missed.length} file(s) not ignored, first ${missed[0]}`;
  }
  return null;
}

/** The trusted commit (record base or --keys-from) could not be read. */
/**
 * When the record's commits are absent from this repository, it is a record
 * of another repository (or of history this clone did not fetch): said as a
 * mismatch with the checkout, not as a key or history problem.
 */
async function foreignRecord(
  git: GitRevisions,
  repo: string,
  base: string,
  head: string,
): Promise<string | null> {
  const [hasBase, hasHead] = await Promise.all(
    [base, head].map((sha) => git.commitExists(repo, sha).catch(() => false)),
  );
  // In a shallow clone the commits may be of this repository, just not fetched: said as such elsewhere.
  if ((hasBase && hasHead) || (await git.isShallow?.(repo).catch(() => true))) return null;
  const missing = [!hasBase ? `base ${short(base)}` : null, !hasHead ? `head ${short(head)}` : null]
    .filter(Boolean)
    .join(', ');
  return `the record's commits (${missing}) are not in this repository: it was made in another repository`;
}

type NamedCommit = { sha: string; name: string };

/** No --key, no --keys-from, and none of the default trusted refs exists. */
class NoTrustedRef extends Error {
  constructor() {
    super(
      'no trusted ref to read keys from (none of origin/HEAD, main, master exists): pass --keys-from REF (CI: the target branch) or --key PUB',
    );
  }
}

class KeysUnreadable extends Error {
  constructor(
    readonly sha: string,
    override readonly cause: unknown,
  ) {
    super(`cannot read keys at ${sha}`);
  }
}

function checkShape(s: Record<string, unknown>): Predicate | string {
  if (s._type !== STATEMENT_TYPE) return `_type is ${JSON.stringify(s._type)}, not ${STATEMENT_TYPE}`;
  if (s.predicateType !== PREDICATE_TYPE)
    return `predicateType is ${JSON.stringify(s.predicateType)}, not ${PREDICATE_TYPE}`;
  const p = s.predicate as Record<string, unknown> | null;
  if (typeof p !== 'object' || p === null) return 'statement has no predicate';
  if (p.version !== PREDICATE_VERSION)
    return `predicate version ${JSON.stringify(p.version)} is not supported (expected ${PREDICATE_VERSION})`;
  const subject = Array.isArray(s.subject)
    ? (s.subject[0] as Record<string, unknown> | undefined)
    : undefined;
  const commit = (subject?.digest as Record<string, unknown> | undefined)?.gitCommit;
  if (!Array.isArray(s.subject) || s.subject.length !== 1 || typeof commit !== 'string' || !SHA.test(commit))
    return 'subject must be one git commit';
  const snap = p.snapshot as Record<string, unknown> | null;
  if (typeof snap !== 'object' || snap === null) return 'predicate has no snapshot';
  for (const k of SNAPSHOT_COMMITS)
    if (typeof snap[k] !== 'string' || !SHA.test(snap[k] as string)) return `snapshot.${k} is not a commit`;
  for (const k of SNAPSHOT_STRINGS) if (typeof snap[k] !== 'string') return `snapshot.${k} is missing`;
  for (const k of PREDICATE_STRINGS) if (typeof p[k] !== 'string') return `predicate.${k} is missing`;
  if (typeof p.status !== 'string') return 'predicate.status is missing';
  if (!RUN_STATUSES.includes(p.status))
    return `predicate.status ${JSON.stringify(p.status)} is not a run status`;
  if (p.outcome !== null && typeof p.outcome !== 'string') return 'predicate.outcome is not a string';
  if (p.outcome !== null && !OUTCOMES.includes(p.outcome))
    return `predicate.outcome ${JSON.stringify(p.outcome)} is not an outcome`;
  if (p.finalHead !== commit) return 'subject and predicate.finalHead differ';
  // Every key of CheckedPredicate and CheckedSnapshot was checked above; the rest stay `unknown`.
  return p as unknown as Predicate;
}

function fail(
  code: VerifyCode,
  reason: string,
  known: { runId?: string; head?: string; outcome?: string | null; keyId?: string } = {},
): VerifyResult {
  return {
    ok: false,
    code,
    reason,
    runId: known.runId ?? null,
    head: known.head ?? null,
    outcome: known.outcome ?? null,
    keyId: known.keyId ?? null,
  };
}

/** The record's reuse line; a predicate from elsewhere that says verdicts were reused in another shape is refused all the same. */
function reusedLineOf(reused: unknown): string {
  const s = reused as ReuseSummary;
  return Array.isArray(s?.roles) && Array.isArray(s?.from) ? reuseLine(s) : 'verdicts were reused';
}
