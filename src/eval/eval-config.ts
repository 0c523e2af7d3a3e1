/**
 * The one config an eval applies to every case. Cases carry no revloop
 * config of their own: this file and its criteria are committed on top of
 * each case's base (as revloop.config.json), and the case's head is replayed
 * onto that commit, so the change under review is exactly base..head.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { readConfigDocument } from '../config/document.js';
import { parseConfigText } from '../config/parse.js';
import { type AgentConfig, agentConfigSchema } from '../core/config.js';
import { CorpusError } from './errors.js';

export type EvalMode = 'review' | 'loop';

export interface EvalConfig {
  /** Files committed on top of each base. */
  files: Record<string, string>;
  reviewers: string[];
  /** One sentence for the report: how the config met the cases. */
  applied: string;
  /** The optional judge (docs/eval.md): an agent deciding whether a finding describes a prose defect. */
  judge: JudgeConfig | null;
}

export interface JudgeConfig {
  name: string;
  agent: AgentConfig;
  /** Relative paths in the agent's config resolve against the config's directory. */
  dir: string;
  callSeconds: number;
  /** Attempts per judgement (`retry.attempts`), the first included. */
  attempts: number;
  /** The backoff between them (`retry.baseDelayMs`, `retry.maxDelayMs`), as the loop's calls wait. */
  baseDelayMs: number;
  maxDelayMs: number;
}

type Agent = { command?: unknown; script?: unknown };

/** Relative paths in commands and scripts name files beside the config, not in the case's repository. */
function absolutise(agent: Agent | undefined, dir: string): void {
  if (!agent) return;
  if (Array.isArray(agent.command))
    agent.command = agent.command.map((a: unknown) =>
      typeof a === 'string' && !isAbsolute(a) && /[/.]/.test(a) && existsSync(resolve(dir, a))
        ? resolve(dir, a)
        : a,
    );
  if (typeof agent.script === 'string' && !isAbsolute(agent.script))
    agent.script = resolve(dir, agent.script);
}

export function loadEvalConfig(path: string, mode: EvalMode): EvalConfig {
  if (!existsSync(path)) throw new CorpusError(path, '--config: no such file');
  const text = readFileSync(path, 'utf8');
  // Validated as written (the judge apart: revloop's own config has no such key), so an error names the user's file and key.
  const written = readConfigDocument(text, path) as Record<string, unknown>;
  const { judge: judgeRaw, ...rest } = written ?? {};
  parseConfigText(judgeRaw === undefined ? text : JSON.stringify(rest), path);
  const raw = rest as Record<string, unknown>;
  const dir = dirname(resolve(path));
  for (const r of (raw.reviewers as Agent[] | undefined) ?? []) absolutise(r, dir);
  absolutise(raw.refuter as Agent | undefined, dir);
  absolutise(raw.fixer as Agent | undefined, dir);
  if (mode === 'review') delete raw.fixer;
  delete raw.store;
  const criteria = String(raw.criteria);
  const criteriaPath = resolve(dir, criteria);
  if (!existsSync(criteriaPath))
    throw new CorpusError(path, `criteria: "${criteria}" not found beside the config`);
  const cfg = parseConfigText(JSON.stringify(raw), 'revloop.config.json');
  const judge = judgeRaw === undefined ? null : parseJudge(path, judgeRaw, dir);
  return {
    judge: judge && {
      ...judge,
      callSeconds: cfg.timeouts.callSeconds,
      attempts: cfg.retry.attempts,
      baseDelayMs: cfg.retry.baseDelayMs,
      maxDelayMs: cfg.retry.maxDelayMs,
    },
    files: {
      'revloop.config.json': `${JSON.stringify(raw, null, 2)}\n`,
      [cfg.criteria]: readFileSync(criteriaPath, 'utf8'),
    },
    reviewers: cfg.reviewers.map((r) => r.name),
    applied: `${path} and its criteria committed on top of each case's base as revloop.config.json and ${cfg.criteria}; the head replayed onto that commit${mode === 'review' ? '; review only (fixer left out)' : '; the whole loop'}`,
  };
}

/** The `judge:` key: an agent configured as a reviewer is (any adapter), named "judge" unless it says. */
function parseJudge(
  path: string,
  raw: unknown,
  dir: string,
): { name: string; agent: AgentConfig; dir: string } {
  if (raw !== null && typeof raw === 'object') absolutise(raw as Agent, dir);
  const res = agentConfigSchema.safeParse(raw);
  if (!res.success) {
    const issue = res.error.issues[0];
    const key = ['judge', ...(issue?.path ?? []).map(String)].join('.');
    throw new CorpusError(path, `${key}: ${issue?.message ?? 'invalid'}`);
  }
  return { name: res.data.name ?? 'judge', agent: res.data, dir };
}
