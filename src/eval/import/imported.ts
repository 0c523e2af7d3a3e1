/** A pull request read from a benchmark's file, before its repository is found: plain data. */
import type { Defect } from '../corpus-schema.js';

export interface ImportedPr {
  owner: string;
  repo: string;
  number: number;
  url: string;
  title: string;
  /** Commits the benchmark names, when it names them; else found in the repository (import.ts). */
  base: string | null;
  head: string | null;
  defects: Defect[];
}

/** A case id from the PR: `owner-repo-N`, in the corpus's id alphabet. */
export const caseIdOf = (pr: ImportedPr): string =>
  `${pr.owner}-${pr.repo}-${pr.number}`.replace(/[^\w.-]+/g, '_');
