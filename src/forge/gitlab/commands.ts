/**
 * The GitLab side of comment commands, through @gitbeaker/rest. The
 * repository is the project's path (`group/project`); a comment is a note
 * of the merge request. Write access is a member's access level of
 * developer (30) or above, inherited memberships included.
 */
import { Gitlab } from '@gitbeaker/rest';
import { answerMarker, type CommandForge, PAUSE_LABEL } from '../commands.js';
import { ForgeRefusedError } from '../errors.js';

export interface GitLabCommandOptions {
  apiUrl: string;
  token(repo: string): Promise<string>;
}

const DEVELOPER = 30;

const status = (err: unknown): number | null => {
  const e = err as { cause?: { response?: { status?: number } }; status?: number };
  return e?.cause?.response?.status ?? e?.status ?? null;
};

const refused =
  (what: string) =>
  (err: unknown): never => {
    throw new ForgeRefusedError(status(err), what, String((err as Error)?.message ?? err).slice(0, 300), 0);
  };

export function gitlabCommandForge(o: GitLabCommandOptions): CommandForge {
  const host = o.apiUrl.replace(/\/api\/v4\/?$/, '');
  const api = async (repo: string) => new Gitlab({ host, token: await o.token(repo) });
  return {
    async canWrite(repo, user) {
      const gl = await api(repo);
      const users = await gl.Users.all({ username: user }).catch(refused(`GET user ${user}`));
      const id = users.find((u) => u.username === user)?.id;
      if (id === undefined) return false;
      try {
        const m = await gl.ProjectMembers.show(repo, id, { includeInherited: true });
        return Number(m.access_level) >= DEVELOPER;
      } catch (err) {
        if (status(err) === 404) return false;
        return refused(`GET member ${user} of ${repo}`)(err);
      }
    },
    async headOf(repo, pr) {
      const mr = await (await api(repo)).MergeRequests.show(repo, pr).catch(refused(`GET ${repo}!${pr}`));
      return String(mr.sha);
    },
    async isPaused(repo, pr) {
      const mr = await (await api(repo)).MergeRequests.show(repo, pr).catch(refused(`GET ${repo}!${pr}`));
      const labels = (mr.labels ?? []) as (string | { name: string })[];
      return labels.some((l) => (typeof l === 'string' ? l : l.name) === PAUSE_LABEL);
    },
    async setPaused(repo, pr, paused) {
      await (await api(repo)).MergeRequests.edit(
        repo,
        pr,
        paused ? { addLabels: PAUSE_LABEL } : { removeLabels: PAUSE_LABEL },
      ).catch(refused(`PUT labels of ${repo}!${pr}`));
    },
    async acknowledge(repo, pr, commentId) {
      await (await api(repo)).MergeRequestNoteAwardEmojis.award(
        repo,
        pr,
        Number(commentId),
        'thumbsup',
      ).catch((err: unknown) => {
        // Awarded already (a redelivery): one reaction, as asked.
        if (!/already been taken/i.test(String((err as Error)?.message)))
          refused(`POST award on note ${commentId}`)(err);
      });
    },
    async answer(repo, pr, key, text) {
      const gl = await api(repo);
      const marker = answerMarker(key);
      const notes = await gl.MergeRequestNotes.all(repo, pr, { perPage: 100 }).catch(
        refused(`GET notes of ${repo}!${pr}`),
      );
      if (notes.some((n) => String(n.body ?? '').startsWith(marker))) return;
      await gl.MergeRequestNotes.create(repo, pr, `${marker}\n${text}`).catch(
        refused(`POST note on ${repo}!${pr}`),
      );
    },
  };
}
