/**
 * Admission (invariant 3): resolve the revision, freeze its inputs into a
 * snapshot, and ask the store for the one run of its admission key.
 */
import { relative } from 'node:path';
import { ConfigLoadError } from '../config/errors.js';
import {
  agentFileDigests,
  agentFiles,
  type LoadedConfig,
  loadConfigAt,
  protectedPaths,
} from '../config/loader.js';
import { canonicalJson } from '../core/canonical-json.js';
import { type AgentConfig, type Config, type ReviewerConfig, reuseOf } from '../core/config.js';
import { type IgnoreRules, leavesOut } from '../core/ignore.js';
import { isFirstHand } from '../core/judged-content.js';
import { admissionKey, findingFingerprint, snapshotKey } from '../core/keys.js';
import type { FindingRow } from '../core/ledger.js';
import { TEMPLATES } from '../core/prompt.js';
import { sampleRuleOf } from '../core/samples.js';
import { agentIdentity } from '../core/scope-lock.js';
import type { ReviewerSpec, Snapshot } from '../core/types.js';
import { commonGitDir } from '../git/dot-git.js';
import { resolveUserRef } from '../git/user-ref.js';
import type { DiffRead } from '../ports/git.js';
import type { AdmissionLimits, AdmitResult, RerunRequest } from '../ports/store.js';
import { CONTROLLER_VERSION } from '../version.js';
import { poolDir } from './checkout/index.js';
import type { LoopDeps } from './deps.js';
import { NothingToReviewError } from './errors.js';

export interface AdmitRequest {
  repoDir: string;
  baseRef?: string | undefined;
  headRef: string;
  change?: string | undefined;
  configPath?: string | undefined;
  configFrom: 'base' | 'head';
  limits?: AdmissionLimits | undefined;
  /** Review the revision again on purpose: who asked and why (ports/store.ts AdmitInput.rerun). */
  rerun?: RerunRequest | undefined;
}

export interface Admission {
  result: AdmitResult;
  /** The diff read to hash it: the first round's prompts carry it (text null past the prompt limit). */
  diff: DiffRead;
  snapshot: Snapshot;
  snapshotKey: string;
  loaded: LoadedConfig;
  repo: string;
}

/**
 * The bases tried without --base, by full name: `main` alone would be read as a
 * tag `main` first (git's order), which a change's author can push.
 */
const DEFAULT_BASES = [
  'refs/heads/main',
  'refs/heads/master',
  'refs/remotes/origin/main',
  'refs/remotes/origin/master',
];

/** The base commit: --base resolved unambiguously, or the first default base that exists. */
export async function resolveBase(
  git: LoopDeps['git'],
  repo: string,
  baseRef: string | undefined,
): Promise<string> {
  if (baseRef) return (await resolveUserRef(git, repo, baseRef, '--base')).sha;
  for (const b of DEFAULT_BASES) {
    const sha = await git.resolve(repo, b).catch(() => undefined);
    if (sha) return sha;
  }
  throw new ConfigLoadError('no --base given and none of main, master, origin/main exists: pass --base REF');
}

export async function resolveRevision(deps: Pick<LoopDeps, 'git'>, req: AdmitRequest) {
  const { git } = deps;
  const repo = await git.root(req.repoDir);
  const branchOf = req.headRef === 'HEAD' ? git.currentBranch(repo) : Promise.resolve(null);
  branchOf.catch(() => undefined);
  const baseP = resolveBase(git, repo, req.baseRef);
  baseP.catch(() => undefined);
  // Independent questions, asked together; the head is named unambiguously like the base.
  const given = await resolveUserRef(git, repo, req.headRef, '--head');
  const head = given.sha;
  const fullName =
    req.headRef === 'HEAD' ? null : (given.refname ?? (await git.fullRefName(repo, req.headRef)));
  const base = await baseP;
  // Awaited by the caller, which reads the config from `base` meanwhile.
  const mergeBase = git.mergeBase(repo, base, head);
  mergeBase.catch(() => undefined);
  // A bare commit id cannot move; a ref name can, and its move supersedes the run. HEAD stands
  // for the branch it points at (checking out another branch mid-run is not a new push). A
  // short name is frozen as the full ref it named: a tag of the same name made mid-run
  // must not change what the freeze check reads.
  const bareId = head.startsWith(req.headRef.toLowerCase()) && /^[0-9a-f]{7,64}$/i.test(req.headRef);
  const branch = await branchOf;
  const headRef = bareId ? null : branch ? `refs/heads/${branch}` : (fullName ?? req.headRef);
  return { repo, base, head, mergeBase, headRef, branch };
}

function spec(
  name: string,
  cfg: AgentConfig | ReviewerConfig,
  template: string,
  defined: { criteriaDigest: string; fileDigests?: ReadonlyMap<string, string | null> | undefined },
  hash: (s: string) => string,
): ReviewerSpec {
  const promptTemplateDigest = hash(`${template}\n${cfg.instructions ?? ''}`);
  const { adapter, command, script, model, baseURL } = cfg;
  const named = agentFiles(cfg);
  const files =
    defined.fileDigests && named.length > 0
      ? Object.fromEntries(named.map((p) => [p, defined.fileDigests?.get(p) ?? null]))
      : undefined;
  return {
    name,
    adapter,
    model,
    promptTemplateDigest,
    identityDigest: agentIdentity(
      {
        adapter,
        command,
        script,
        model,
        baseURL,
        promptTemplateDigest,
        criteriaDigest: defined.criteriaDigest,
        files,
      },
      hash,
    ),
  };
}

/** The agent's frozen spec with `reuse` when its verdicts are reused (absent otherwise: snapshots keep their keys). */
function reusing(s: ReviewerSpec, cfg: AgentConfig | ReviewerConfig, c: Config): ReviewerSpec {
  const reuse = reuseOf(cfg, c.review);
  return reuse ? { ...s, reuse } : s;
}

export function buildSnapshot(
  rev: { repo: string; base: string; head: string; mergeBase: string; headRef: string | null },
  loaded: LoadedConfig,
  extra: { change: string; diffDigest: string; configFrom: 'base' | 'head'; settlementsDigest: string },
  hash: (s: string) => string,
  /** agentFileDigests of the config (absent: agents' identities leave their files out). */
  fileDigests?: ReadonlyMap<string, string | null>,
): Snapshot {
  const c: Config = loaded.config;
  const defined = { criteriaDigest: loaded.criteriaDigest, fileDigests };
  return {
    repo: rev.repo,
    change: extra.change,
    base: rev.base,
    head: rev.head,
    headRef: rev.headRef,
    mergeBase: rev.mergeBase,
    diffDigest: extra.diffDigest,
    configFrom: extra.configFrom,
    configPath: loaded.configPath,
    criteriaPath: c.criteria,
    criteriaDigest: loaded.criteriaDigest,
    configDigest: loaded.configDigest,
    settlementsDigest: extra.settlementsDigest,
    reviewers: c.reviewers.map((r) => {
      const samples = sampleRuleOf(r.samples, c.review.samples);
      const s = { ...spec(r.name, r, TEMPLATES.reviewer, defined, hash), ...(samples ? { samples } : {}) };
      return reusing(s, r, c);
    }),
    refuter: c.refuter
      ? reusing(spec(c.refuter.name ?? 'refuter', c.refuter, TEMPLATES.refuter, defined, hash), c.refuter, c)
      : null,
    fixer: c.fixer ? spec(c.fixer.name ?? 'fixer', c.fixer, TEMPLATES.fixer, defined, hash) : null,
    checks: c.checks.map((k) => ({ name: k.name, run: k.run })),
    protectedPaths: protectedPaths(loaded),
    policy: c.policy,
    budgets: c.budgets,
    callSeconds: c.timeouts.callSeconds,
    retry: c.retry,
    review: {
      contextBytes: c.review.contextBytes,
      temperature: c.review.temperature,
      ...(c.review.seed !== undefined ? { seed: c.review.seed } : {}),
      concurrency: c.review.concurrency ?? null,
      chunkBytes: c.review.chunkBytes,
      maxRefutedPerReply: c.review.maxRefutedPerReply,
    },
    controllerVersion: CONTROLLER_VERSION,
    ignore: ignoreRulesOf(loaded),
  };
}

/** The frozen ignore rules of a loaded config: its globs, and the linguist lines `review.ignoreLinguist` read. */
export function ignoreRulesOf(loaded: LoadedConfig): IgnoreRules {
  return { globs: loaded.config.ignore, attributes: loaded.attributes ?? [] };
}

/**
 * The findings of this change a named person decided first-hand (not carried over), by
 * fingerprint: a new run's finding inherits one only on the same judged content and place
 * (invariant 16, core/judged-content.ts).
 */
export async function changeSettlements(deps: Pick<LoopDeps, 'store' | 'hash'>, changeKey: string) {
  const out = new Map<string, FindingRow[]>();
  for (const run of await deps.store.listRuns({ changeKey })) {
    for (const f of await deps.store.listFindings(run.id)) {
      if (!isFirstHand(f)) continue;
      const fp = findingFingerprint(f.reviewer, f.reported.file, f.reported.claim, deps.hash);
      out.set(fp, [...(out.get(fp) ?? []), f]);
    }
  }
  return out;
}

export async function admit(deps: LoopDeps, req: AdmitRequest): Promise<Admission> {
  const refs = await resolveRevision(deps, req);
  const source = req.configFrom === 'head' ? refs.head : refs.base;
  // Independent reads, started together (the diff as soon as the merge base is known);
  // a failure is reported in the order they were asked: merge base, config, diff, identity.
  // The diff, the longest read, starts as soon as the merge base and the config are in (the
  // config usually first); the identity once the merge base is.
  const config = loadConfigAt(deps.git, refs.repo, source, req.configPath);
  const started = [
    config,
    // The config first (it is usually read before the merge base is known): the read keeps no body
    // of a file its ignore rules leave out, whatever the order the two come in.
    Promise.all([refs.mergeBase, config]).then(([mb, loaded]) =>
      deps.git.diffRead(refs.repo, mb, refs.head, Number.POSITIVE_INFINITY, leavesOut(ignoreRulesOf(loaded))),
    ),
    refs.mergeBase.catch(() => undefined).then(() => deps.git.identity(refs.repo)),
    // What defines each agent besides the config: the files its command names, at the config's commit.
    config.then((loaded) => agentFileDigests(deps.git, refs.repo, loaded)),
  ] as const;
  for (const p of started) p.catch(() => undefined);
  const rev = { ...refs, mergeBase: await refs.mergeBase };
  // An empty diff is refused before anything else is judged: no run, no record (never a clear).
  if ((await started[1].catch(() => null))?.text === '') throw await nothingToReview(deps, req, rev);
  const [loaded, diff, identity, fileDigests] = await Promise.all(started);
  checkoutsOutside(deps, rev.repo, loaded.config.pool);
  const diffDigest = diff.digest;
  // The change is named as the user named it (`topic`, `origin/topic`); the snapshot freezes the full ref.
  const change = req.change ?? rev.branch ?? (rev.headRef && req.headRef !== 'HEAD' ? req.headRef : rev.head);
  const changeKey = `${identity}#${change}`;
  const settled = await changeSettlements(deps, changeKey);
  const settlementsDigest = deps.hash(
    canonicalJson(
      [...settled.values()]
        .flat()
        .map((f) => [f.id, f.content ?? null, f.settlement?.decision ?? null])
        .sort(),
    ),
  );
  const snapshot = buildSnapshot(
    { ...rev, repo: identity },
    loaded,
    { change, diffDigest, configFrom: req.configFrom, settlementsDigest },
    deps.hash,
    fileDigests,
  );
  const sKey = snapshotKey(snapshot, deps.hash);
  const aKey = admissionKey(
    {
      repo: identity,
      base: rev.base,
      head: rev.head,
      diffDigest,
      criteriaDigest: loaded.criteriaDigest,
      configDigest: deps.hash(`${loaded.configDigest}:${req.configFrom}:${settlementsDigest}`),
    },
    deps.hash,
  );
  const c = loaded.config.admission;
  const limits: AdmissionLimits = {
    maxActive: req.limits?.maxActive ?? c.maxActive,
    costBudgetUsd: req.limits?.costBudgetUsd ?? c.costBudgetUsd,
    costWindowSeconds: req.limits?.costWindowSeconds ?? c.costWindowSeconds,
    perRepository: req.limits?.perRepository,
    estimatedCostUsd: loaded.config.budgets.costUsd,
  };
  const result = await deps.store.admit({
    runId: deps.newRunId(),
    admissionKey: aKey,
    changeKey,
    repo: identity,
    snapshotKey: sKey,
    snapshot,
    limits,
    rerun: req.rerun,
  });
  return { result, diff, snapshot, snapshotKey: sKey, loaded, repo: rev.repo };
}

/**
 * A pool the config puts inside the repository or its git dir is refused
 * before any run exists (pool/location.ts): nothing is recorded, exit 12.
 */
function checkoutsOutside(deps: Pick<LoopDeps, 'env'>, repo: string, pool: Config['pool']): void {
  const common = pool.size > 0 ? commonGitDir(repo) : null;
  if (common) poolDir(common, pool.dir, repo, deps.env);
}

/** Why the diff is empty, and whether the user's uncommitted edits are what they meant to review. */
async function nothingToReview(
  deps: Pick<LoopDeps, 'git' | 'stateDir'>,
  req: AdmitRequest,
  rev: { repo: string; base: string; head: string; mergeBase: string },
): Promise<NothingToReviewError> {
  const short = (sha: string) => sha.slice(0, 12);
  const base = req.baseRef ? `${req.baseRef} (${short(rev.base)})` : `the base (${short(rev.base)})`;
  const detail =
    rev.head === rev.base || rev.head === rev.mergeBase
      ? `${req.headRef} (${short(rev.head)}) has no commits that ${base} does not have`
      : `${req.headRef} (${short(rev.head)}) changes nothing against its merge base with ${base}`;
  const state = relative(rev.repo, deps.stateDir(rev.repo));
  const ours = (p: string) =>
    state !== '' && !state.startsWith('..') && (p === state || p.startsWith(`${state}/`));
  const edits = await deps.git.status(rev.repo).catch(() => []);
  return new NothingToReviewError(rev.head, rev.base, detail, edits.filter((e) => !ours(e.path)).length);
}
