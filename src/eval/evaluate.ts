/**
 * One `revloop eval`: the corpus through one configuration (and, with
 * `against`, a second one on the same cases), scored and compared. The
 * scratch repositories live in a temporary directory removed afterwards
 * unless `keepDir` is given; the scratch ledger is in memory unless a
 * ledger URL is given (then `eval replay` can read it).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Store } from '../ports/store.js';
import { createReviewer } from '../reviewers/index.js';
import { openStore } from '../store/index.js';
import { type BootstrapOptions, DEFAULT_BOOTSTRAP } from './bootstrap.js';
import type { CaseResult } from './case-result.js';
import { type LoadedCorpus, loadCorpus } from './corpus-load.js';
import type { EvalCase } from './corpus-schema.js';
import { type EvalMode, loadEvalConfig } from './eval-config.js';
import type { Judge } from './judge.js';
import type { Matcher } from './match.js';
import { runCorpus } from './runner.js';
import { type Comparison, compare, type Scorecard, scorecard } from './scorecard.js';

export interface EvaluateOptions {
  corpus: string;
  config: string;
  against?: string | undefined;
  mode: EvalMode;
  window: number;
  env: NodeJS.ProcessEnv;
  signal?: AbortSignal | undefined;
  bootstrap?: BootstrapOptions | undefined;
  keepDir?: string | undefined;
  ledger?: string | undefined;
  matcher?: Matcher | undefined;
  /** Cases run at once (default 4): reviewers of different cases do not wait for each other. */
  jobs?: number | undefined;
  onCase?:
    | ((
        label: string,
        index: number,
        total: number,
        c: EvalCase,
        phase: 'start' | 'end',
        r?: CaseResult,
      ) => void)
    | undefined;
}

export interface Evaluation {
  corpus: string;
  primary: Scorecard;
  against: { other: Scorecard; diff: Comparison } | null;
}

export async function evaluate(o: EvaluateOptions): Promise<Evaluation> {
  const loaded = loadCorpus(o.corpus);
  // Both configs are checked before any case runs: a typo in --against does not cost the first pass.
  const sides = [o.config, ...(o.against ? [o.against] : [])].map((path) => ({
    path,
    config: loadEvalConfig(path, o.mode),
  }));
  const work = o.keepDir ? resolve(o.keepDir) : mkdtempSync(join(tmpdir(), 'revloop-eval-'));
  const store = await openStore(o.ledger ?? 'memory:', { repoRoot: work });
  const boot = o.bootstrap ?? DEFAULT_BOOTSTRAP;
  try {
    const cards: Scorecard[] = [];
    for (const [i, side] of sides.entries()) {
      const results = await runSide(o, loaded, side.config, join(work, `side-${i}`), store, side.path);
      cards.push(
        scorecard(
          results,
          { label: side.path, mode: o.mode, window: o.window, applied: side.config.applied },
          boot,
        ),
      );
    }
    const [primary, other] = cards as [Scorecard, Scorecard | undefined];
    return {
      corpus: loaded.file,
      primary,
      against: other ? { other, diff: compare(primary, other, boot) } : null,
    };
  } finally {
    await store.close();
    if (!o.keepDir) rmSync(work, { recursive: true, force: true });
  }
}

function runSide(
  o: EvaluateOptions,
  loaded: LoadedCorpus,
  config: ReturnType<typeof loadEvalConfig>,
  workDir: string,
  store: Store,
  label: string,
): Promise<CaseResult[]> {
  return runCorpus({
    loaded,
    config,
    workDir,
    store,
    window: o.window,
    env: o.env,
    signal: o.signal,
    matcher: o.matcher,
    judge: buildJudge(config, o.env),
    jobs: o.jobs ?? 4,
    onCase: o.onCase ? (i, n, c, phase, r) => o.onCase?.(label, i, n, c, phase, r) : undefined,
  });
}

/** The config's judge as an agent (any adapter), or null; relative paths resolve beside the config. */
function buildJudge(config: ReturnType<typeof loadEvalConfig>, env: NodeJS.ProcessEnv): Judge | null {
  const j = config.judge;
  if (!j) return null;
  return { config: j, agent: createReviewer(j.agent, { role: 'judge', name: j.name, repoRoot: j.dir, env }) };
}
