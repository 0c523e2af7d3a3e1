/**
 * A benchmark's published subset of its PRs, for `eval import --split FILE`:
 * SWE-PRBench's `evals/eval_100.json` (a JSON list of records, each with a
 * `task_id`: what its harness's extract_eval_100_task_ids.py reads), or that
 * script's output, one task id a line. Parsed at the boundary; anything else
 * is one CorpusError naming the file (exit 2).
 */
import { existsSync, readFileSync } from 'node:fs';
import { CorpusError } from '../errors.js';

export function readSplit(file: string): Set<string> {
  if (!existsSync(file)) throw new CorpusError(file, 'no such file (the split)');
  const text = readFileSync(file, 'utf8');
  let ids: string[];
  if (/^\s*[[{]/.test(text)) {
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch (err) {
      throw new CorpusError(file, `not JSON: ${(err as Error).message.split('\n')[0]}`);
    }
    if (!Array.isArray(data))
      throw new CorpusError(file, 'a split is a JSON list of records with a "task_id"');
    ids = data.map((row, i) => {
      const id = typeof row === 'string' ? row : (row as { task_id?: unknown } | null)?.task_id;
      if (typeof id !== 'string' || id === '')
        throw new CorpusError(file, `[${i}]: neither a task id nor a record with a "task_id" string`);
      return id;
    });
  } else
    ids = text
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l !== '');
  if (ids.length === 0) throw new CorpusError(file, 'the split names no task');
  return new Set(ids);
}

/** The PRs the split names, in their files' order; a name no file holds is an error (a split of another revision). */
export function inSplit<T extends { id: string }>(prs: readonly T[], split: Set<string>, file: string): T[] {
  const held = new Set(prs.map((p) => p.id));
  const missing = [...split].filter((id) => !held.has(id));
  if (missing.length > 0)
    throw new CorpusError(
      file,
      `names ${missing.length} task(s) no given prs.jsonl holds (first: ${missing[0]}); a split of another dataset revision?`,
    );
  return prs.filter((p) => split.has(p.id));
}
