/**
 * A loopback GitLab (API v4) holding one merge request in memory, for the
 * routes revloop uses. Each request is checked against the shape GitLab's
 * API documentation gives it (route, required and allowed fields, a
 * position's fields, a line inside the diff); one that does not conform is
 * answered 400 and recorded in `violations`. Gitbeaker talks to it unchanged.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

interface Note {
  id: number;
  body: string;
  author: { username: string };
  resolvable: boolean;
  resolved: boolean;
  resolved_by: { username: string } | null;
  position?: Record<string, string>;
}

export class FakeGitLab {
  readonly project = '42';
  mr = {
    iid: 7,
    base: '',
    start: '',
    head: '',
    diffs: [] as { old_path: string; new_path: string; diff: string; deleted_file: boolean }[],
  };
  readonly discussions: { id: string; individual_note: boolean; notes: Note[] }[] = [];
  readonly statuses: { id: number; sha: string; status: string; name: string; description: string }[] = [];
  readonly tokens = new Map<string, { username: string; canWrite: boolean }>();
  readonly violations: string[] = [];
  private seq = 500;
  private server: Server | null = null;
  url = '';

  async start(): Promise<this> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((ok) => this.server?.listen(0, '127.0.0.1', ok));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/api/v4`;
    return this;
  }

  async stop(): Promise<void> {
    await new Promise<void>((ok) => this.server?.close(() => ok()));
  }

  counts() {
    const notes = this.discussions.filter((d) => d.individual_note).length;
    return { notes, discussions: this.discussions.length - notes, statuses: this.statuses.length };
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks);
    const url = new URL(req.url ?? '/', 'http://x');
    const method = req.method ?? 'GET';
    const send = (status: number, data: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(data));
    };
    const user = this.tokens.get(String(req.headers['private-token'] ?? ''));
    if (!user) return send(401, { message: '401 Unauthorized' });
    const ct = String(req.headers['content-type'] ?? '');
    let body: Record<string, string> = {};
    if (raw.length && ct.startsWith('application/json')) body = JSON.parse(raw.toString('utf8'));
    else if (raw.length) {
      const form = await new Response(raw, { headers: { 'content-type': ct } }).formData();
      form.forEach((v, k) => {
        body[k] = String(v);
      });
    }
    const bad = (why: string) => {
      this.violations.push(`${method} ${url.pathname}: ${why}`);
      send(400, { message: why });
    };
    const allow = (fields: string[], required: string[]) => {
      for (const k of Object.keys(body)) if (!fields.includes(k)) return `unknown field ${k}`;
      for (const k of required) if (body[k] === undefined || body[k] === '') return `${k} is missing`;
      return null;
    };
    // GitLab (Grape) reads a write's attributes from the query string or the body alike.
    if (method !== 'GET') for (const [k, v] of url.searchParams) body[k] = v;
    else
      for (const k of url.searchParams.keys())
        if (!['page', 'per_page', 'pagination', 'name', 'order_by', 'sort', 'state'].includes(k))
          return bad(`unknown query parameter ${k}`);
    const p = url.pathname.replace('/api/v4', '');
    const mrPath = `/projects/${this.project}/merge_requests/${this.mr.iid}`;
    if (method !== 'GET' && !user.canWrite) return send(403, { message: '403 Forbidden' });
    if (method === 'GET' && p === '/user') return send(200, { id: 1, username: user.username });
    if (method === 'GET' && p === `/projects/${this.project}/merge_requests`) {
      const state = url.searchParams.get('state');
      if (state !== null && !['opened', 'closed', 'locked', 'merged', 'all'].includes(state))
        return bad(`state must be opened, closed, locked, merged or all, not ${state}`);
      return send(
        200,
        state === null || state === 'opened' || state === 'all'
          ? [
              {
                iid: this.mr.iid,
                sha: this.mr.head,
                target_branch: 'main',
                draft: false,
                author: { id: 2, username: 'alice', bot: false },
              },
            ]
          : [],
      );
    }
    if (p.startsWith(`/projects/${this.project}/merge_requests/`) && !p.startsWith(mrPath))
      return send(404, { message: '404 Not found' });
    if (method === 'GET' && p === mrPath)
      return send(200, {
        iid: this.mr.iid,
        sha: this.mr.head,
        diff_refs: { base_sha: this.mr.base, start_sha: this.mr.start, head_sha: this.mr.head },
      });
    if (method === 'GET' && p === `${mrPath}/diffs`) return send(200, this.mr.diffs);
    if (method === 'GET' && p === `${mrPath}/discussions`) return send(200, this.discussions);
    if (method === 'POST' && p === `${mrPath}/notes`) {
      const why = allow(['body'], ['body']);
      if (why) return bad(why);
      const note = this.note(body.body as string, user.username, false);
      this.discussions.push({ id: `d${this.seq++}`, individual_note: true, notes: [note] });
      return send(201, note);
    }
    let m = new RegExp(`^${mrPath}/notes/(\\d+)$`).exec(p);
    if (method === 'PUT' && m) {
      const why = allow(['body'], ['body']);
      if (why) return bad(why);
      const n = this.discussions.flatMap((d) => d.notes).find((x) => x.id === Number(m?.[1]));
      if (!n) return send(404, { message: '404 Note Not Found' });
      n.body = body.body as string;
      return send(200, n);
    }
    if (method === 'POST' && p === `${mrPath}/discussions`) {
      // "Both position[old_path] and position[new_path] are required and must refer to the file path
      // before and after the change"; a thread on an added line has new_line and no old_line, one on
      // an unchanged line both (GitLab's discussions API documentation).
      const pos = [
        'base_sha',
        'start_sha',
        'head_sha',
        'position_type',
        'old_path',
        'new_path',
        'new_line',
      ].map((k) => `position[${k}]`);
      const why = allow(['body', ...pos, 'position[old_line]'], ['body', ...pos]);
      if (why) return bad(why);
      if (body['position[head_sha]'] !== this.mr.head || body['position[base_sha]'] !== this.mr.base)
        return send(400, { message: '400 Bad request - Note {:position=>["is incomplete"]}' });
      const line = Number(body['position[new_line]']);
      const path = String(body['position[new_path]']);
      const oldLine =
        body['position[old_line]'] === undefined ? undefined : Number(body['position[old_line]']);
      const at = this.lineIn(path, line);
      const file = this.mr.diffs.find((d) => d.new_path === path);
      if (!at || file?.old_path !== body['position[old_path]'] || at.old !== oldLine)
        return send(400, {
          message: '400 Bad request - Note {:line_code=>["can\'t be blank", "must be a valid line code"]}',
        });
      const note = this.note(body.body as string, user.username, true);
      note.position = {
        old_path: String(body['position[old_path]']),
        new_path: path,
        ...(oldLine === undefined ? {} : { old_line: String(oldLine) }),
        new_line: String(line),
        head_sha: this.mr.head,
      };
      const d = { id: `d${this.seq++}`, individual_note: false, notes: [note] };
      this.discussions.push(d);
      return send(201, d);
    }
    m = new RegExp(`^${mrPath}/discussions/(d\\d+)/notes/(\\d+)$`).exec(p);
    if (method === 'PUT' && m) {
      const why = allow(['body', 'resolved'], []);
      if (why) return bad(why);
      const n = this.discussions.find((d) => d.id === m?.[1])?.notes.find((x) => x.id === Number(m?.[2]));
      if (!n) return send(404, { message: '404 Not found' });
      if (n.author.username !== user.username) return send(403, { message: '403 Forbidden' });
      if (body.body !== undefined) n.body = body.body;
      return send(200, n);
    }
    m = new RegExp(`^${mrPath}/discussions/(d\\d+)$`).exec(p);
    if (method === 'PUT' && m) {
      const why = allow(['resolved'], ['resolved']);
      if (why) return bad(why);
      const d = this.discussions.find((x) => x.id === m?.[1]);
      if (!d) return send(404, { message: '404 Not found' });
      for (const n of d.notes)
        Object.assign(n, {
          resolved: String(body.resolved) === 'true',
          resolved_by: { username: user.username },
        });
      return send(200, d);
    }
    m = new RegExp(`^/projects/${this.project}/statuses/([0-9a-f]{40})$`).exec(p);
    if (method === 'POST' && m) {
      const why = allow(
        ['state', 'name', 'description', 'ref', 'target_url', 'coverage', 'pipeline_id'],
        ['state'],
      );
      if (why) return bad(why);
      if (!['pending', 'running', 'success', 'failed', 'canceled'].includes(String(body.state)))
        return bad(`state ${body.state}`);
      if (String(body.description ?? '').length > 255) return bad('description longer than 255');
      const s = {
        id: this.seq++,
        sha: m[1] as string,
        status: String(body.state),
        name: String(body.name ?? 'default'),
        description: String(body.description ?? ''),
      };
      this.statuses.push(s);
      return send(201, s);
    }
    m = new RegExp(`^/projects/${this.project}/repository/commits/([0-9a-f]{40})/statuses$`).exec(p);
    if (method === 'GET' && m) {
      const name = url.searchParams.get('name');
      return send(200, this.statuses.filter((s) => s.sha === m?.[1] && (!name || s.name === name)).reverse());
    }
    return bad(`no such route in the fake GitLab`);
  }

  /** A person resolves a discussion. */
  resolveAs(username: string, discussionId: string): void {
    const d = this.discussions.find((x) => x.id === discussionId);
    for (const n of d?.notes ?? []) Object.assign(n, { resolved: true, resolved_by: { username } });
  }

  private note(body: string, username: string, resolvable: boolean): Note {
    return { id: this.seq++, body, author: { username }, resolvable, resolved: false, resolved_by: null };
  }

  /** A new-side line of the file's diff: added (no old line) or unchanged (with its old line); null if not in it. */
  private lineIn(path: string, line: number): { old: number | undefined } | null {
    const f = this.mr.diffs.find((d) => d.new_path === path);
    if (!f) return null;
    let oldNext = 0;
    let next = 0;
    for (const l of f.diff.split('\n')) {
      const h = /^@@ -(\d+)(?:,\d+)? \+(\d+)/.exec(l);
      if (h) {
        oldNext = Number(h[1]);
        next = Number(h[2]);
      } else if (l.startsWith('+')) {
        if (next === line) return { old: undefined };
        next++;
      } else if (l.startsWith(' ')) {
        if (next === line) return { old: oldNext };
        next++;
        oldNext++;
      } else if (l.startsWith('-')) oldNext++;
    }
    return null;
  }
}
