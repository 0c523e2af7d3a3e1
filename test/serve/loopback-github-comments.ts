/**
 * A loopback GitHub for comment commands: collaborators' permissions, pull
 * requests' heads and labels, issue comments and their reactions, for one
 * repository (acme/widgets). Every request is validated against
 * @octokit/openapi first; one that does not conform is answered 400 and
 * recorded in `violations`.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { githubOpenApi } from '../forge/openapi.js';

export class LoopbackGitHubComments {
  readonly token = 'ghs_installation_token';
  readonly permissions = new Map<string, 'admin' | 'write' | 'read' | 'none'>();
  readonly heads = new Map<number, string>();
  readonly labels = new Map<number, Set<string>>();
  readonly comments: { id: number; pr: number; body: string }[] = [];
  readonly reactions: { commentId: number; content: string }[] = [];
  readonly requests: string[] = [];
  readonly violations: string[] = [];
  private seq = 5000;
  private server: Server | null = null;
  url = '';

  async start(): Promise<this> {
    githubOpenApi();
    this.server = createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const body = Buffer.concat(chunks).toString('utf8');
      const url = new URL(req.url ?? '/', this.url);
      const method = req.method ?? 'GET';
      this.requests.push(`${method} ${url.pathname}`);
      const send = (status: number, data: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
        res.end(JSON.stringify(data));
      };
      if (req.headers.authorization !== `token ${this.token}`)
        return send(401, { message: 'Bad credentials' });
      try {
        githubOpenApi().check(method, url, body);
      } catch (err) {
        this.violations.push((err as Error).message);
        return send(400, { message: (err as Error).message });
      }
      const b = body ? (JSON.parse(body) as Record<string, unknown>) : {};
      const p = url.pathname.replace('/repos/acme/widgets', '');
      let m = /^\/collaborators\/([^/]+)\/permission$/.exec(p);
      if (m && method === 'GET') {
        const login = decodeURIComponent(m[1] as string);
        const permission = this.permissions.get(login);
        if (!permission) return send(404, { message: 'Not Found' });
        return send(200, { permission, role_name: permission, user: { login, type: 'User' } });
      }
      m = /^\/pulls\/(\d+)$/.exec(p);
      if (m && method === 'GET') {
        const head = this.heads.get(Number(m[1]));
        if (!head) return send(404, { message: 'Not Found' });
        return send(200, {
          number: Number(m[1]),
          state: 'open',
          head: { sha: head, ref: 'topic' },
          base: { sha: '0'.repeat(40), ref: 'main' },
        });
      }
      m = /^\/issues\/(\d+)\/labels(?:\/([^/]+))?$/.exec(p);
      if (m) {
        const set = this.labels.get(Number(m[1])) ?? new Set<string>();
        this.labels.set(Number(m[1]), set);
        const list = () => [...set].map((name, i) => ({ id: i + 1, name, color: 'ededed' }));
        if (method === 'GET' && !m[2]) return send(200, list());
        if (method === 'POST' && !m[2]) {
          for (const l of b.labels as string[]) set.add(l);
          return send(200, list());
        }
        if (method === 'DELETE' && m[2]) {
          const name = decodeURIComponent(m[2]);
          if (!set.delete(name)) return send(404, { message: 'Label does not exist' });
          return send(200, list());
        }
      }
      m = /^\/issues\/comments\/(\d+)\/reactions$/.exec(p);
      if (m && method === 'POST') {
        const commentId = Number(m[1]);
        const content = String(b.content);
        const had = this.reactions.some((r) => r.commentId === commentId && r.content === content);
        if (!had) this.reactions.push({ commentId, content });
        return send(had ? 200 : 201, { id: 1, content, user: { login: 'revloop[bot]' } });
      }
      m = /^\/issues\/(\d+)\/comments$/.exec(p);
      if (m && method === 'GET')
        return send(
          200,
          this.comments
            .filter((c) => c.pr === Number(m?.[1]))
            .map((c) => ({ id: c.id, body: c.body, user: { login: 'revloop[bot]', type: 'Bot' } })),
        );
      if (m && method === 'POST') {
        const c = { id: this.seq++, pr: Number(m[1]), body: String(b.body) };
        this.comments.push(c);
        return send(201, { id: c.id, body: c.body });
      }
      return send(404, { message: 'Not Found' });
    });
    await new Promise<void>((ok) => this.server?.listen(0, '127.0.0.1', ok));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    await new Promise<void>((ok) => this.server?.close(() => ok()));
  }
}
