/**
 * `revloop eval replay RUN… --reviewer NAME --with FILE`: the prompts the
 * ledger recorded for one reviewer in those runs, sent to the reviewer of
 * that name in another config (a new model, new instructions), and the
 * replies compared with the recorded verdicts. Nothing is written to the
 * ledger: this measures, it decides nothing.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseConfigText } from '../config/parse.js';
import type { AgentConfig, ReviewerConfig } from '../core/config.js';
import { promptPath } from '../io/prompt-files.js';
import type { LoopDeps } from '../loop/deps.js';
import { findRunOrThrow } from '../loop/operations.js';
import { type Agreement, addAgreement, agreement } from './agreement.js';
import { CorpusError } from './errors.js';

export interface RunAgreement extends Agreement {
  runId: string;
  prompts: number;
  /** Prompts the new reviewer gave no usable reply to (class and detail), never counted as agreement. */
  failed: { callKey: string; class: string; detail: string }[];
  /** Prompts whose text is no longer on this machine. */
  missing: number;
}

export async function replayAgreement(
  deps: LoopDeps,
  runs: readonly string[],
  o: { reviewer: string; withConfig: string; window: number; callSeconds?: number },
): Promise<{ runs: RunAgreement[]; total: Agreement }> {
  if (!existsSync(o.withConfig)) throw new CorpusError(o.withConfig, '--with: no such file');
  const cfg = parseConfigText(readFileSync(o.withConfig, 'utf8'), o.withConfig);
  const agent: AgentConfig | ReviewerConfig | undefined =
    cfg.reviewers.find((r) => r.name === o.reviewer) ??
    (cfg.reviewers.length === 1 ? cfg.reviewers[0] : undefined);
  if (!agent) throw new CorpusError(o.withConfig, `reviewers: no reviewer named "${o.reviewer}"`);
  const reviewer = deps.createReviewer(agent, {
    role: 'reviewer',
    name: o.reviewer,
    repoRoot: deps.repoRoot,
    env: deps.env,
  });
  const out: RunAgreement[] = [];
  for (const id of runs) {
    const run = await findRunOrThrow(deps, id);
    const verdicts = (await deps.store.listVerdicts(run.id)).filter(
      (v) => v.role === 'reviewer' && v.reviewer === o.reviewer,
    );
    const row: RunAgreement = {
      runId: run.id,
      prompts: verdicts.length,
      kept: 0,
      lost: 0,
      new: 0,
      failed: [],
      missing: 0,
    };
    for (const v of verdicts) {
      const path = promptPath(deps.stateDir(deps.repoRoot), v.promptDigest);
      if (!existsSync(path)) {
        row.missing++;
        continue;
      }
      const checkout = mkdtempSync(join(tmpdir(), 'revloop-eval-replay-'));
      try {
        await deps.git.addWorktree(deps.repoRoot, checkout, v.revision);
        const res = await reviewer.call({
          callKey: `eval-replay:${v.callKey}`,
          role: 'reviewer',
          name: o.reviewer,
          round: v.round,
          prompt: readFileSync(path, 'utf8'),
          promptDigest: v.promptDigest,
          base: run.snapshot.base,
          head: v.revision,
          repoDir: checkout,
          deadlineMs: deps.clock.now() + (o.callSeconds ?? cfg.timeouts.callSeconds) * 1000,
          signal: deps.signal,
        });
        if (!res.ok)
          row.failed.push({ callKey: v.callKey, class: res.class, detail: res.detail.split('\n')[0] ?? '' });
        else Object.assign(row, addAgreement(row, agreement(v.reply, res.reply, o.window)));
      } finally {
        await deps.git.removeWorktree(deps.repoRoot, checkout).catch(() => undefined);
        rmSync(checkout, { recursive: true, force: true });
      }
    }
    out.push(row);
  }
  return { runs: out, total: out.reduce<Agreement>(addAgreement, { kept: 0, lost: 0, new: 0 }) };
}
