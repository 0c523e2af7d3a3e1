/**
 * The GitLab forge through @gitbeaker/rest: a merge request's summary note
 * (one per run), a discussion with a `position` (base, start and head SHAs,
 * old and new path, new line, and the old line too for an unchanged one) per
 * standing blocker, resolved when it no longer
 * stands, and a commit status named `revloop` on the live head (an older
 * head's status is marked superseded). GitLab has
 * no batch review call, so a refusal after the summary note leaves the run
 * published in part (exit 9); publishing again completes it.
 */
import { Gitlab } from '@gitbeaker/rest';
import { countedWrite, type ExecuteResult, type ForgeAdapter } from '../adapter.js';
import { type LineSpan, patchSpans, unchangedLines } from '../diff-lines.js';
import { ForgeRefusedError } from '../errors.js';
import { parseFindingMarker, parseRunMarker } from '../markers.js';
import type { Conclusion, ForgeState, ForgeThread } from '../types.js';

export interface GitLabTarget {
  project: string;
  mr: number;
}

const STATUS_NAME = 'revloop';
/** GitLab's statuses have no neutral; the conclusion leads the description so a re-read compares like with like. */
const STATE: Record<Conclusion, 'success' | 'failed'> = {
  success: 'success',
  failure: 'failed',
  neutral: 'failed',
};

interface Failure {
  cause?: { description?: string; response?: { status?: number } };
  message?: string;
}

function refusal(what: string, written: number, err: unknown): ForgeRefusedError {
  const e = err as Failure;
  const status = e?.cause?.response?.status ?? null;
  const detail = String(e?.cause?.description ?? e?.message ?? err)
    .replace(/\s+/g, ' ')
    .slice(0, 500);
  return new ForgeRefusedError(status, what, detail, written);
}

export function gitlabAdapter(t: GitLabTarget, c: { token: string; apiUrl: string }): ForgeAdapter {
  const api = new Gitlab({ host: c.apiUrl.replace(/\/api\/v4\/?$/, ''), token: c.token });
  const where = `${t.project}!${t.mr}`;
  let refs = { base: '', start: '', head: '' };
  /** Per new path, the diff's old path and its unchanged lines (new line -> old line). */
  const sides = new Map<string, { oldPath: string; unchanged: Map<number, number> }>();
  const read = async <T>(what: string, p: Promise<T>): Promise<T> =>
    p.catch((err: unknown) => {
      throw refusal(what, 0, err);
    });

  return {
    forge: 'gitlab',
    where,
    async read(): Promise<ForgeState> {
      const mr = await read(`GET merge request ${where}`, api.MergeRequests.show(t.project, t.mr));
      const d = mr.diff_refs as { base_sha: string; start_sha: string; head_sha: string };
      refs = { base: d.base_sha, start: d.start_sha, head: d.head_sha };
      const [diffs, me, discussions] = await Promise.all([
        read(`GET diffs of ${where}`, api.MergeRequests.allDiffs(t.project, t.mr)),
        api.Users.showCurrentUser().then(
          (u) => u.username as string,
          () => null,
        ),
        read(`GET discussions of ${where}`, api.MergeRequestDiscussions.all(t.project, t.mr)),
      ]);
      const commentable = new Map<string, LineSpan[]>();
      for (const f of diffs) {
        if (f.deleted_file || !f.diff) continue;
        commentable.set(f.new_path, patchSpans(f.diff));
        // A position names the file on both sides (a renamed file's old path) and an unchanged
        // line by both numbers, or GitLab refuses it (its API documentation; `line_code` errors).
        sides.set(f.new_path, { oldPath: f.old_path, unchanged: unchangedLines(f.diff) });
      }
      const summaries: ForgeState['summaries'] = [];
      const threads: ForgeThread[] = [];
      for (const disc of discussions) {
        const n = disc.notes?.[0] as
          | {
              id: number;
              body: string;
              author: { username: string };
              resolved?: boolean;
              resolved_by?: { username: string } | null;
            }
          | undefined;
        if (!n || (me && n.author.username !== me)) continue;
        // A discussion is posted as a form (its position needs one), and forms carry line breaks as CRLF.
        n.body = n.body.replace(/\r\n/g, '\n');
        const run = parseRunMarker(n.body);
        if (run) summaries.push({ id: String(n.id), runId: run.runId, revision: run.revision, body: n.body });
        const m = parseFindingMarker(n.body);
        if (m)
          threads.push({
            commentId: `${disc.id}:${n.id}`,
            threadId: String(disc.id),
            fingerprint: m.fingerprint,
            runId: m.runId,
            revision: m.revision,
            body: n.body,
            resolved: Boolean(n.resolved),
            resolvedByPerson: Boolean(
              n.resolved && n.resolved_by && n.resolved_by.username !== n.author.username,
            ),
          });
      }
      // The status on the live head, and on the heads earlier publications named (to mark them superseded).
      const shas = [refs.head, ...summaries.map((x) => x.revision), ...threads.map((x) => x.revision)]
        .filter((sha, i, all) => sha.length === 40 && all.indexOf(sha) === i)
        .slice(0, 20);
      const checks: ForgeState['checks'] = [];
      for (const sha of shas) {
        const statuses = await read(
          `GET statuses of ${sha.slice(0, 7)}`,
          api.Commits.allStatuses(t.project, sha, { name: STATUS_NAME }),
        );
        const latest = statuses.find((x) => x.name === STATUS_NAME);
        const parsed = /^(success|failure|neutral): (.*)$/s.exec(String(latest?.description ?? ''));
        if (latest && parsed)
          checks.push({
            id: `status:${sha}`,
            sha,
            conclusion: parsed[1] as string,
            title: parsed[2] as string,
            summary: null,
          });
      }
      return { head: refs.head, base: refs.base, summaries, threads, checks, commentable };
    },
    async execute(plan, _runId): Promise<ExecuteResult> {
      const out: ExecuteResult = {
        writes: 0,
        reviewId: null,
        created: 0,
        updated: 0,
        resolved: 0,
        check: null,
      };
      const step = countedWrite(out, refusal);
      const discuss = (commitId: string, path: string, line: number, body: string) => {
        const side = sides.get(path);
        const oldLine = side?.unchanged.get(line);
        return step(`POST discussion on ${path}:${line}`, () =>
          api.MergeRequestDiscussions.create(t.project, t.mr, body, {
            position: {
              baseSha: refs.base,
              startSha: refs.start,
              headSha: commitId,
              positionType: 'text',
              oldPath: side?.oldPath ?? path,
              newPath: path,
              newLine: String(line),
              ...(oldLine === undefined ? {} : { oldLine: String(oldLine) }),
            },
          }),
        );
      };
      for (const a of plan.actions) {
        if (a.kind === 'create_summary') {
          const note = await step(`POST note on ${where}`, () =>
            api.MergeRequestNotes.create(t.project, t.mr, a.body),
          );
          out.reviewId = String(note.id);
          for (const cm of a.comments) {
            await discuss(a.commitId, cm.path, cm.line, cm.body);
            out.created++;
          }
        } else if (a.kind === 'update_summary') {
          await step(`PUT note ${a.summaryId}`, () =>
            api.MergeRequestNotes.edit(t.project, t.mr, Number(a.summaryId), { body: a.body }),
          );
          out.reviewId = a.summaryId;
        } else if (a.kind === 'add_comment') {
          await discuss(a.commitId, a.comment.path, a.comment.line, a.comment.body);
          out.created++;
        } else if (a.kind === 'edit_comment') {
          const [disc, note] = a.commentId.split(':') as [string, string];
          await step(`PUT note ${note}`, () =>
            api.MergeRequestDiscussions.editNote(t.project, t.mr, disc, Number(note), { body: a.body }),
          );
          out.updated++;
        } else if (a.kind === 'resolve_thread') {
          await step(`PUT discussion ${a.threadId} resolved`, () =>
            api.MergeRequestDiscussions.resolve(t.project, t.mr, a.threadId, true),
          );
          out.resolved++;
        } else if (a.kind === 'set_check') {
          await step(`POST status on ${a.sha.slice(0, 7)}`, () =>
            api.Commits.editStatus(t.project, a.sha, STATE[a.conclusion], {
              name: STATUS_NAME,
              description: `${a.conclusion}: ${a.title}`.slice(0, 255),
            }),
          );
          if (a.sha === plan.check.sha) out.check = 'status';
        }
      }
      return out;
    },
  };
}
