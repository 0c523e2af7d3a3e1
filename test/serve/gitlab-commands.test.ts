/**
 * The GitLab side of comment commands through gitbeaker, against a loopback
 * GitLab (API v4) for the routes it uses: each request's route and fields
 * checked against GitLab's API documentation (unknown routes and fields are
 * recorded as violations). Write access is a member's access level of
 * developer (30) or above; the pause is the merge request's label; an
 * answer is one note, never twice.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UsageError } from '../../src/core/errors.js';
import { PAUSE_LABEL } from '../../src/forge/commands.js';
import { gitlabCommandForge } from '../../src/forge/gitlab/commands.js';
import { gitlabAccess, gitlabCredentialsFromEnv } from '../../src/serve/gitlab-access.js';

const PROJECT = 'acme/widgets';
const TOKEN = 'glpat-loopback';

class LoopbackGitLab {
  readonly users = new Map<string, { id: number; access: number | null }>();
  readonly labels = new Set<string>();
  readonly notes: { id: number; body: string }[] = [];
  readonly awards: { note: number; name: string }[] = [];
  readonly violations: string[] = [];
  head = 'a'.repeat(40);
  private server: Server | null = null;
  url = '';

  async start(): Promise<this> {
    this.server = createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const raw = Buffer.concat(chunks).toString('utf8');
      const url = new URL(req.url ?? '/', 'http://x');
      const method = req.method ?? 'GET';
      const send = (status: number, data: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(data));
      };
      if (req.headers['private-token'] !== TOKEN) return send(401, { message: '401 Unauthorized' });
      const b = raw ? (JSON.parse(raw) as Record<string, unknown>) : {};
      const fields = (allowed: string[]) => {
        for (const k of Object.keys(b))
          if (!allowed.includes(k)) this.violations.push(`${method} ${url.pathname}: field ${k}`);
      };
      const p = url.pathname;
      const mr = `/api/v4/projects/${encodeURIComponent(PROJECT)}/merge_requests/7`;
      if (method === 'GET' && p === '/api/v4/users') {
        const name = url.searchParams.get('username') ?? '';
        const u = this.users.get(name);
        return send(200, u ? [{ id: u.id, username: name }] : []);
      }
      let m = new RegExp(`^/api/v4/projects/${encodeURIComponent(PROJECT)}/members/all/(\\d+)$`).exec(p);
      if (method === 'GET' && m) {
        const u = [...this.users.values()].find((x) => x.id === Number(m?.[1]));
        if (!u || u.access === null) return send(404, { message: '404 Not found' });
        return send(200, { id: u.id, access_level: u.access });
      }
      if (p === mr && method === 'GET')
        return send(200, { iid: 7, sha: this.head, labels: [...this.labels] });
      if (p === mr && method === 'PUT') {
        fields(['add_labels', 'remove_labels']);
        for (const l of String(b.add_labels ?? '')
          .split(',')
          .filter(Boolean))
          this.labels.add(l);
        for (const l of String(b.remove_labels ?? '')
          .split(',')
          .filter(Boolean))
          this.labels.delete(l);
        return send(200, { iid: 7, labels: [...this.labels] });
      }
      m = new RegExp(`^${mr}/notes/(\\d+)/award_emoji$`).exec(p);
      if (m && method === 'POST') {
        fields(['name']);
        const note = Number(m[1]);
        if (this.awards.some((a) => a.note === note && a.name === b.name))
          return send(404, { message: '404 Award Emoji Name has already been taken' });
        this.awards.push({ note, name: String(b.name) });
        return send(201, { id: 1, name: b.name });
      }
      if (p === `${mr}/notes` && method === 'GET') return send(200, this.notes);
      if (p === `${mr}/notes` && method === 'POST') {
        fields(['body']);
        const n = { id: 900 + this.notes.length, body: String(b.body) };
        this.notes.push(n);
        return send(201, n);
      }
      this.violations.push(`${method} ${p}: no such route`);
      return send(404, { message: '404 Not found' });
    });
    await new Promise<void>((ok) => this.server?.listen(0, '127.0.0.1', ok));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    await new Promise<void>((ok) => this.server?.close(() => ok()));
  }
}

let gl: LoopbackGitLab;
beforeAll(async () => {
  gl = await new LoopbackGitLab().start();
  gl.users.set('maintainer', { id: 1, access: 40 });
  gl.users.set('dev', { id: 2, access: 30 });
  gl.users.set('reporter', { id: 3, access: 20 });
  gl.users.set('outsider', { id: 4, access: null });
});
afterAll(async () => {
  await gl.stop();
  expect(gl.violations).toEqual([]);
});

const forge = () => gitlabCommandForge({ apiUrl: `${gl.url}/api/v4`, token: async () => TOKEN });

describe('GitLab comment commands', () => {
  it.each([
    ['maintainer', true],
    ['dev', true],
    ['reporter', false],
    ['outsider', false],
    ['no-such-user', false],
  ])('%s may write: %s', async (user, expected) => {
    expect(await forge().canWrite(PROJECT, user)).toBe(expected);
  });

  it('reads the head, pauses and resumes by the label', async () => {
    const f = forge();
    expect(await f.headOf(PROJECT, 7)).toBe(gl.head);
    expect(await f.isPaused(PROJECT, 7)).toBe(false);
    await f.setPaused(PROJECT, 7, true);
    expect([...gl.labels]).toEqual([PAUSE_LABEL]);
    expect(await f.isPaused(PROJECT, 7)).toBe(true);
    await f.setPaused(PROJECT, 7, false);
    expect(await f.isPaused(PROJECT, 7)).toBe(false);
  });

  it('acknowledges a note once, and answers it once', async () => {
    const f = forge();
    await f.acknowledge(PROJECT, 7, '55');
    await f.acknowledge(PROJECT, 7, '55');
    expect(gl.awards).toEqual([{ note: 55, name: 'thumbsup' }]);
    await f.answer(PROJECT, 7, { comment: '56' }, 'the usage');
    await f.answer(PROJECT, 7, { comment: '56' }, 'the usage');
    expect(gl.notes.map((n) => n.body)).toEqual(['<!-- revloop answer=56 -->\nthe usage']);
  });
});

describe('GitLab credentials and names', () => {
  it('reads the token and API URL; the clone URL names the project as the runs do', () => {
    const creds = gitlabCredentialsFromEnv({
      REVLOOP_GITLAB_TOKEN: 'glpat-x',
      REVLOOP_GITLAB_API_URL: 'https://gitlab.example.com/api/v4/',
    });
    expect(creds).toEqual({ token: 'glpat-x', apiUrl: 'https://gitlab.example.com/api/v4' });
    const access = gitlabAccess(creds);
    expect(access.cloneUrl('group/sub/project')).toBe('https://gitlab.example.com/group/sub/project.git');
    expect(access.identity('group/sub/project')).toBe('https://gitlab.example.com/group/sub/project');
  });

  it.each([
    [{}, /no GitLab credentials: set REVLOOP_GITLAB_TOKEN/],
    [
      { REVLOOP_GITLAB_TOKEN: 't', REVLOOP_GITLAB_API_URL: 'https://gitlab.example.com' },
      /must be GitLab's API URL, ending in \/api\/v4/,
    ],
  ])('refuses %j', (env, message) => {
    expect(() => gitlabCredentialsFromEnv(env)).toThrow(UsageError);
    expect(() => gitlabCredentialsFromEnv(env)).toThrow(message);
  });
});
