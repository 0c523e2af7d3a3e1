/**
 * Martian Code Review Bench, offline set (github.com/withmartian/code-review-benchmark,
 * `offline/golden_comments/*.json`): an array of PRs, each with its URL and
 * its golden comments, prose issues with a severity (Low, Medium, High,
 * Critical) and no file or line. Parsed here at the boundary; each PR becomes
 * a case whose defects are prose (matched by the eval config's judge).
 * Commits are not in the file: the repository and the PR's head come from the
 * `--repos` directory (import.ts).
 */
import { z } from 'zod';
import type { Defect } from '../corpus-schema.js';
import { caseIdOf, type ImportedPr } from './imported.js';

const prSchema = z
  .object({
    pr_title: z.string(),
    url: z.string().regex(/^https:\/\/github\.com\/[^/]+\/[^/]+\/pull\/\d+\/?$/, 'a GitHub pull request URL'),
    original_url: z.string().optional(),
    comments: z.array(
      z
        .object({
          comment: z.string().min(1),
          severity: z.enum(['Low', 'Medium', 'High', 'Critical']),
        })
        .loose(),
    ),
  })
  .loose();

export const martianFileSchema = z.array(prSchema);

const SEVERITY: Record<string, Defect['severity']> = {
  Critical: 'MAJOR',
  High: 'MAJOR',
  Medium: 'MODERATE',
  Low: 'MINOR',
};

/** The PRs of one golden-comments file (already parsed by martianFileSchema). */
export function martianPrs(file: z.infer<typeof martianFileSchema>): ImportedPr[] {
  return file.map((pr) => {
    const [, owner, repo, n] = /github\.com\/([^/]+)\/([^/]+)\/pull\/(\d+)/.exec(pr.url) ?? [];
    const at = { owner: owner as string, repo: repo as string, number: Number(n) };
    return {
      ...at,
      id: caseIdOf(at),
      url: pr.url,
      title: pr.pr_title,
      base: null,
      head: null,
      defects: pr.comments.map((c) => ({
        description: c.comment.replace(/\s+/g, ' ').trim(),
        severity: SEVERITY[c.severity] ?? 'MAJOR',
      })),
    };
  });
}
