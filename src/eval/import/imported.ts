/** A pull request read from a benchmark's file, before its repository is found: plain data. */
import type { ZodError } from 'zod';
import type { Defect } from '../corpus-schema.js';

export interface ImportedPr {
  /** The case id, in the corpus's id alphabet. */
  id: string;
  owner: string;
  repo: string;
  /** The PR's number, when the file gives one (needed to find refs/pull/N/head). */
  number: number | null;
  url: string;
  title: string;
  /** Commits the benchmark names, when it names them; else found in the repository (import.ts). */
  base: string | null;
  head: string | null;
  defects: Defect[];
}

/** A case id from the PR: `owner-repo-N`, in the corpus's id alphabet. */
export const caseIdOf = (pr: { owner: string; repo: string; number: number }): string =>
  `${pr.owner}-${pr.repo}-${pr.number}`.replace(/[^\w.-]+/g, '_');

/** Where a parsed file first fails its published shape: `.path[0].field: message`. */
export const zodIssueAt = (err: ZodError): string => {
  const i = err.issues[0];
  const path = (i?.path ?? []).map((k) => (typeof k === 'number' ? `[${k}]` : `.${String(k)}`)).join('');
  return `${path || '(top level)'}: ${i?.message ?? 'invalid'}`;
};
