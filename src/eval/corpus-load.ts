/**
 * Reads a corpus: `corpus.json` in a directory, or a JSON file. Validated
 * against the schema; every problem is one line naming the file, the case
 * (by id when it has one) and the field.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { ZodError } from 'zod';
import {
  type Corpus,
  cleanCaseSchema,
  corpusSchema,
  type EvalCase,
  knownBugCaseSchema,
} from './corpus-schema.js';
import { CorpusError } from './errors.js';

export interface LoadedCorpus {
  corpus: Corpus;
  /** The corpus file. */
  file: string;
  /** Paths in the corpus are relative to this directory. */
  dir: string;
}

export function corpusFile(path: string): string {
  const p = resolve(path);
  if (!existsSync(p)) throw new CorpusError(path, 'no such file or directory');
  return statSync(p).isDirectory() ? join(p, 'corpus.json') : p;
}

/** `cases[3] (id "slugify-69").defects[0].line` from a zod issue path. */
function where(raw: unknown, path: readonly PropertyKey[]): string {
  let out = '';
  let node: unknown = raw;
  path.forEach((k, i) => {
    if (typeof k === 'number') out += `[${k}]`;
    else out += `${out ? '.' : ''}${String(k)}`;
    node = node && typeof node === 'object' ? (node as Record<PropertyKey, unknown>)[k] : undefined;
    const id = (node as { id?: unknown } | undefined)?.id;
    if (i === 1 && path[0] === 'cases' && typeof id === 'string') out += ` (id "${id}")`;
  });
  return out || '(top level)';
}

function firstIssue(raw: unknown, err: ZodError): string {
  const issue = err.issues[0];
  if (!issue) return 'invalid';
  // A case failing both kinds is judged as the kind it says it is, so the message names the field.
  const [top, i] = issue.path;
  if (issue.code === 'invalid_union' && top === 'cases' && typeof i === 'number') {
    const c = (raw as { cases: unknown[] }).cases[i];
    const branch = (c as { clean?: unknown })?.clean === true ? cleanCaseSchema : knownBugCaseSchema;
    const inner = branch.safeParse(c);
    const sub = inner.success ? undefined : inner.error.issues[0];
    if (sub) return `${where(raw, ['cases', i, ...sub.path])}: ${sub.message}`;
  }
  return `${where(raw, issue.path)}: ${issue.message}`;
}

export function loadCorpus(path: string): LoadedCorpus {
  const file = corpusFile(path);
  if (!existsSync(file)) throw new CorpusError(path, 'a corpus directory needs a corpus.json');
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new CorpusError(file, `not JSON: ${(err as Error).message.split('\n')[0]}`);
  }
  const res = corpusSchema.safeParse(raw);
  if (!res.success) throw new CorpusError(file, firstIssue(raw, res.error));
  const corpus = res.data;
  const seen = new Set<string>();
  corpus.cases.forEach((c, i) => {
    if (seen.has(c.id)) throw new CorpusError(file, `cases[${i}] (id "${c.id}").id: used twice`);
    seen.add(c.id);
  });
  return { corpus, file, dir: dirname(file) };
}

/** The repository or bundle a case names, as an absolute path. */
export function caseSource(loaded: LoadedCorpus, c: EvalCase): { kind: 'repo' | 'bundle'; path: string } {
  if (c.bundle) return { kind: 'bundle', path: resolve(loaded.dir, c.bundle) };
  return { kind: 'repo', path: resolve(loaded.dir, c.repo as string) };
}
