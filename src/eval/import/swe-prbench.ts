/**
 * SWE-PRBench (huggingface.co/datasets/foundry-ai/swe-prbench, `dataset/`):
 * `prs.jsonl`, one pull request a line, and beside it
 * `annotations/{task_id}_human.json`, the human review comments of that PR.
 * Field names are those of the dataset card's "File Formats" and of the
 * benchmark's own loader (github.com/FoundryHQ-AI/swe-prbench,
 * eval_harness/loader.py); docs/eval.md says which field comes from where.
 * Parsed here at the boundary. Unlike Martian, the file names the commits
 * (`base_commit`, `head_commit`), and comments carry a file and often a line.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { CorpusError } from '../errors.js';
import { type ImportedPr, zodIssueAt } from './imported.js';
import { readJsonFile } from './read-json.js';

const commit = z.string().regex(/^[0-9a-f]{40}$/, 'a 40-hex commit id');

const prLineSchema = z
  .object({
    // The loader reads annotations/{task_id}_human.json; the card's example is "dask__12221".
    task_id: z.string().regex(/^[\w.-]+$/, 'letters, digits, ".", "_" or "-" (it names a file)'),
    repo: z.string().regex(/^[\w.-]+\/[\w.-]+$/, '"owner/name"'),
    pr_number: z.number().int().min(1).optional(),
    pr_url: z.string().optional(),
    title: z.string().optional(),
    base_commit: commit,
    head_commit: commit,
  })
  .loose();

const commentSchema = z
  .object({
    comment_id: z.union([z.string().min(1), z.number().int()]),
    body: z.string(),
    file: z.string().nullable().optional(),
    line: z.number().int().nullable().optional(),
    // Null throughout the published files (`has_severity_annotations: false`): no scale to map.
    severity: z
      .null({ error: 'the published files carry no severity (null); this value is not a known one' })
      .optional(),
    is_initiating_comment: z.boolean().optional(),
  })
  .loose();

const annotationSchema = z
  .object({
    comments: z.array(commentSchema),
    substantive_comment_ids: z.array(z.union([z.string(), z.number().int()])).optional(),
  })
  .loose();

type Comment = z.infer<typeof commentSchema>;

/**
 * The ground truth of one PR exactly as the benchmark's loader picks it: the
 * comments listed in `substantive_comment_ids`, or, when that list is empty
 * or absent, the initiating comments.
 */
function groundTruth(a: z.infer<typeof annotationSchema>): Comment[] {
  const ids = new Set((a.substantive_comment_ids ?? []).map(String));
  return ids.size > 0
    ? a.comments.filter((c) => ids.has(String(c.comment_id)))
    : a.comments.filter((c) => c.is_initiating_comment === true);
}

function annotationsOf(prsFile: string, lineNo: number, pr: z.infer<typeof prLineSchema>) {
  const file = join(dirname(prsFile), 'annotations', `${pr.task_id}_human.json`);
  const res = annotationSchema.safeParse(
    readJsonFile(file, `the annotations of ${prsFile} line ${lineNo}, task ${pr.task_id}`),
  );
  if (!res.success) throw new CorpusError(file, zodIssueAt(res.error));
  return groundTruth(res.data);
}

/** The PRs of one prs.jsonl, each with its ground truth read from annotations/ beside it. */
export function sweprbenchPrs(prsFile: string): ImportedPr[] {
  if (!existsSync(prsFile)) throw new CorpusError(prsFile, 'no such file');
  const lines = readFileSync(prsFile, 'utf8').split('\n');
  const prs: ImportedPr[] = [];
  for (const [i, text] of lines.entries()) {
    if (text.trim() === '') continue;
    const where = `${prsFile}: line ${i + 1}`;
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch (err) {
      throw new CorpusError(where, `not JSON: ${(err as Error).message.split('\n')[0]}`);
    }
    const res = prLineSchema.safeParse(raw);
    if (!res.success) throw new CorpusError(where, zodIssueAt(res.error));
    const pr = res.data;
    const [owner, repo] = pr.repo.split('/') as [string, string];
    prs.push({
      id: pr.task_id,
      owner,
      repo,
      number: pr.pr_number ?? null,
      url: pr.pr_url ?? `https://github.com/${pr.repo}${pr.pr_number ? `/pull/${pr.pr_number}` : ''}`,
      title: pr.title ?? '',
      base: pr.base_commit,
      head: pr.head_commit,
      defects: annotationsOf(prsFile, i + 1, pr).map((c) => ({
        ...(c.file ? { file: c.file } : {}),
        ...(c.file && c.line && c.line >= 1 ? { line: c.line, endLine: c.line } : {}),
        description: c.body.replace(/\s+/g, ' ').trim() || `(comment ${c.comment_id}: empty body)`,
        // No severity is published (see commentSchema): the corpus's default.
        severity: 'MAJOR' as const,
      })),
    });
  }
  if (prs.length === 0) throw new CorpusError(prsFile, 'no pull requests (an empty prs.jsonl)');
  return prs;
}
