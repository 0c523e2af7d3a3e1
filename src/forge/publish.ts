/**
 * Publishes one run to a forge (invariant 17): gathers the facts (the run's
 * report, the other runs of its change, the forge's state read just before
 * writing, the record's verification against the live head, the fixer's
 * suggestions), asks the pure planner what to do, and has the forge's
 * adapter do it. The ledger and the record are only read.
 */
import { loadOutputReport } from '../loop/outputs/run-report-loader.js';
import type { GitBlobs, GitDiffs, GitRevisions } from '../ports/git.js';
import type { Store } from '../ports/store.js';
import { verifyRecordFile } from '../record/verify.js';
import type { ExecuteResult, ForgeAdapter } from './adapter.js';
import { planPublication } from './plan.js';
import { suggestLines } from './suggestion.js';
import type { Conclusion, PublishOptions, RecordCheck, RunView, Suggestion } from './types.js';
import { priorSettlements, runView } from './view.js';

export interface PublishDeps {
  store: Store;
  /** Read only: the fixer's hunks and files, and the record's verification. */
  git: GitRevisions & GitDiffs & GitBlobs;
  repoRoot: string;
  /** The job's environment: its secrets are redacted from everything published. */
  env: NodeJS.ProcessEnv;
}

export interface PublishRequest {
  runId: string;
  adapter: ForgeAdapter;
  options: PublishOptions;
  /** Trusted keys for the record's verification, as `verify --key` / `--keys-from`. */
  keys?: string[] | undefined;
  keysFrom?: string | undefined;
}

export interface PublishResult extends Omit<ExecuteResult, 'check'> {
  published: boolean;
  forge: string;
  target: string;
  runId: string;
  stale: boolean;
  check: { sha: string; conclusion: Conclusion; title: string; kind: ExecuteResult['check'] };
  offDiff: number;
  actions: number;
}

export const DEFAULT_PUBLISH_OPTIONS: PublishOptions = {
  event: 'COMMENT',
  suggestions: true,
  suggestionLines: 10,
  incomplete: 'neutral',
};

export async function publishRun(deps: PublishDeps, req: PublishRequest): Promise<PublishResult> {
  const report = await loadOutputReport(deps.store, req.runId, deps.env);
  if (!report) throw new Error(`run ${req.runId} vanished`);
  const others = (await deps.store.listRuns({ changeKey: report.run.changeKey })).filter(
    (r) => r.id !== report.run.id,
  );
  const prior = priorSettlements(
    await Promise.all(
      others.map(async (r) => ({ runId: r.id, findings: await deps.store.listFindings(r.id) })),
    ),
  );
  const view = runView(report, prior);
  const state = await req.adapter.read();
  const record =
    state.head === view.finalHead ? await checkRecord(deps, report.run.recordPath, state.head, req) : null;
  const suggestions = await fixerSuggestions(deps, view, state.head, req.options);
  const plan = planPublication({
    view,
    state,
    record,
    suggestions,
    options: req.options,
    forge: req.adapter.forge,
  });
  const done = await req.adapter.execute(plan, view.runId);
  return {
    ...done,
    published: true,
    forge: req.adapter.forge,
    target: req.adapter.where,
    runId: view.runId,
    stale: plan.stale,
    check: { ...plan.check, kind: done.check },
    offDiff: plan.offDiff.length,
    actions: plan.actions.length,
  };
}

async function checkRecord(
  deps: PublishDeps,
  path: string | null,
  head: string,
  req: PublishRequest,
): Promise<RecordCheck> {
  if (!path) return { ok: false, code: 'missing', reason: 'the run wrote no record' };
  const r = await verifyRecordFile(path, {
    git: deps.git,
    repo: deps.repoRoot,
    keys: req.keys,
    keysFrom: req.keysFrom,
    subject: head,
  });
  return { ok: r.ok, code: r.code, reason: r.reason };
}

/** The fixer's version of each blocker at the live head, when the head is a revision the run fixed. */
async function fixerSuggestions(
  deps: PublishDeps,
  view: RunView,
  head: string,
  o: PublishOptions,
): Promise<Suggestion[]> {
  if (!o.suggestions || head === view.finalHead || view.status !== 'completed') return [];
  const round = [...view.rounds].reverse().find((r) => r.round > 0 && r.head === head);
  if (!round) return [];
  const blockers = view.findings.filter((f) => f.round === round.round && f.because === null);
  if (!blockers.length) return [];
  const hunks = await deps.git.hunks(deps.repoRoot, head, view.finalHead);
  const out: Suggestion[] = [];
  for (const f of blockers) {
    const file = hunks.find((h) => h.path === f.file);
    if (!file) continue;
    const text = (await deps.git.readFile(deps.repoRoot, view.finalHead, f.file))?.toString('utf8');
    if (text === undefined) continue;
    const s = suggestLines(file, text, f, o.suggestionLines);
    if (s) out.push({ findingId: f.id, ...s });
  }
  return out;
}
