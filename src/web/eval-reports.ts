/**
 * The eval reports `revloop ui --eval FILE|DIR` serves: one JSON file, or
 * every `*.json` in a directory, read once at start and parsed by the
 * report's schema; a file that is not an eval report is one line naming the
 * file and the field.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { UsageError } from '../core/errors.js';
import { type EvalListItem, type EvalReportView, evalReportSchema } from './eval-view.js';

export interface EvalReports {
  list: EvalListItem[];
  get(id: string): EvalReportView | null;
}

function readOne(file: string): EvalReportView {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new UsageError(`--eval: ${file}: not JSON: ${(err as Error).message.split('\n')[0]}`);
  }
  const res = evalReportSchema.safeParse(raw);
  if (!res.success) {
    const i = res.error.issues[0];
    throw new UsageError(
      `--eval: ${file}: not a revloop eval report (revloop eval --format json): ${(i?.path ?? []).join('.') || '(top level)'}: ${i?.message ?? 'invalid'}`,
    );
  }
  return res.data;
}

export function loadEvalReports(path: string): EvalReports {
  const p = resolve(path);
  let files: string[];
  try {
    files = statSync(p).isDirectory()
      ? readdirSync(p)
          .filter((f) => f.endsWith('.json'))
          .sort()
          .map((f) => join(p, f))
      : [p];
  } catch {
    throw new UsageError(`--eval: ${path}: no such file or directory`);
  }
  if (files.length === 0) throw new UsageError(`--eval: ${path}: no .json eval report in this directory`);
  const reports = new Map<string, EvalReportView>();
  const list = files.map((file, i) => {
    const r = readOne(file);
    const id = String(i + 1);
    reports.set(id, r);
    return {
      id,
      file: basename(file),
      label: r.primary.label,
      corpus: r.corpus,
      complete: r.primary.complete && (r.against?.other.complete ?? true),
      ran: r.primary.totals.ran,
      cases: r.primary.totals.cases,
      against: r.against?.other.label ?? null,
    };
  });
  return { list, get: (id) => reports.get(id) ?? null };
}
