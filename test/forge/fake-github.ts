/**
 * A loopback GitHub that keeps one repository's pull requests in memory and
 * speaks the REST endpoints and GraphQL operations revloop uses. Every REST
 * request is validated against GitHub's OpenAPI description first; one that
 * does not conform is answered 400 and recorded in `violations`, so a test
 * that ends with violations fails. Octokit talks to it unchanged.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { githubOpenApi } from './openapi.js';

export interface FakeUser {
  login: string;
  type: 'User' | 'Bot';
  /** Installation tokens (GITHUB_TOKEN) have no user: GET /user is refused. */
  installation?: boolean;
  canWrite?: boolean;
  /** Only a GitHub App's token may create check runs. */
  canCheck?: boolean;
}

export interface FakePull {
  number: number;
  head: string;
  base: string;
  /** Every head the pull request has had (a review's commit_id must be one of them). */
  heads: string[];
  files: { filename: string; status: string; patch: string }[];
  headRepo: string;
  /** Open unless closed (the list of open pull requests leaves it out). */
  closed?: boolean;
  draft?: boolean;
  author?: { login: string; type: 'User' | 'Bot' };
}

interface Comment {
  id: number;
  node_id: string;
  pull_number: number;
  pull_request_review_id: number | null;
  user: { login: string; type: string };
  body: string;
  path: string;
  line: number;
  start_line: number | null;
  side: 'RIGHT';
  commit_id: string;
  in_reply_to_id?: number;
  thread: string;
}

interface Thread {
  id: string;
  pull: number;
  comments: number[];
  isResolved: boolean;
  resolvedBy: string | null;
}

export interface Fault {
  method: string;
  /** A substring of the path. */
  path: string;
  status: number;
  headers?: Record<string, string>;
  body: unknown;
  /** How many requests it answers (default 1). */
  times?: number;
}

export class FakeGitHub {
  readonly owner = 'acme';
  readonly repo = 'widgets';
  readonly pulls = new Map<number, FakePull>();
  readonly reviews: {
    id: number;
    node_id: string;
    pull: number;
    user: { login: string; type: string };
    body: string;
    commit_id: string;
    state: string;
  }[] = [];
  readonly comments: Comment[] = [];
  readonly threads: Thread[] = [];
  readonly checkRuns: {
    id: number;
    head_sha: string;
    name: string;
    external_id: string;
    status: string;
    conclusion: string | null;
    output: { title: string; summary: string };
  }[] = [];
  readonly statuses: { id: number; sha: string; state: string; context: string; description: string }[] = [];
  readonly tokens = new Map<string, FakeUser>();
  readonly faults: Fault[] = [];
  readonly violations: string[] = [];
  readonly requests: { method: string; path: string; status: number }[] = [];
  private seq = 1000;
  private server: Server | null = null;
  url = '';

  async start(): Promise<this> {
    githubOpenApi();
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((ok) => this.server?.listen(0, '127.0.0.1', ok));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    await new Promise<void>((ok) => this.server?.close(() => ok()));
  }

  /** Objects revloop created: what "no duplicate" is asserted on. */
  counts() {
    return {
      reviews: this.reviews.length,
      comments: this.comments.length,
      checkRuns: this.checkRuns.length,
      statuses: this.statuses.length,
    };
  }

  writes(): number {
    return this.requests.filter((r) => r.method !== 'GET' && r.path !== '/graphql' && r.status < 300).length;
  }

  /** A person's action on the forge: resolve the thread of a comment. */
  resolveAs(login: string, commentId: number): void {
    const t = this.threads.find((x) => x.comments.includes(commentId));
    if (t) Object.assign(t, { isResolved: true, resolvedBy: login });
  }

  threadOf(commentId: number): Thread | undefined {
    return this.threads.find((x) => x.comments.includes(commentId));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<boolean> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const url = new URL(req.url ?? '/', this.url);
    const method = req.method ?? 'GET';
    const send = (status: number, data: unknown, headers: Record<string, string> = {}) => {
      this.requests.push({ method, path: url.pathname, status });
      res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
      res.end(JSON.stringify(data));
      return true;
    };
    const token = /^(?:token|bearer) (.+)$/i.exec(req.headers.authorization ?? '')?.[1];
    const user = token ? this.tokens.get(token) : undefined;
    if (!user) return send(401, { message: 'Bad credentials' });
    const fault = this.faults.find((f) => f.method === method && url.pathname.includes(f.path));
    if (fault) {
      fault.times = (fault.times ?? 1) - 1;
      if (fault.times <= 0) this.faults.splice(this.faults.indexOf(fault), 1);
      return send(fault.status, fault.body, fault.headers);
    }
    if (url.pathname === '/graphql' && method === 'POST') return this.graphql(JSON.parse(body), user, send);
    try {
      githubOpenApi().check(method, url, body);
    } catch (err) {
      this.violations.push((err as Error).message);
      return send(400, { message: (err as Error).message });
    }
    const json = body ? (JSON.parse(body) as Record<string, unknown>) : {};
    const write = method !== 'GET';
    if (write && user.canWrite === false)
      return send(403, { message: 'Resource not accessible by integration' });
    return this.route(method, url, json, user, send);
  }

  private route(
    method: string,
    url: URL,
    b: Record<string, unknown>,
    user: FakeUser,
    send: (s: number, d: unknown, h?: Record<string, string>) => boolean,
  ): boolean {
    const p = url.pathname.replace(`/repos/${this.owner}/${this.repo}`, '');
    const who = { login: user.login, type: user.type };
    let m: RegExpExecArray | null;
    if (method === 'GET' && url.pathname === '/user')
      return user.installation
        ? send(403, { message: 'Resource not accessible by integration' })
        : send(200, { login: user.login, type: user.type, id: 1 });
    if (method === 'GET' && p === '/pulls')
      return send(
        200,
        [...this.pulls.values()]
          .filter((pr) => !pr.closed && (url.searchParams.get('state') ?? 'open') === 'open')
          .map((pr) => ({
            number: pr.number,
            state: 'open',
            draft: pr.draft === true,
            user: { id: 1, ...(pr.author ?? { login: 'alice', type: 'User' }) },
            head: { sha: pr.head, ref: 'feature', repo: { full_name: pr.headRepo } },
            base: { sha: pr.base, ref: 'main', repo: { full_name: `${this.owner}/${this.repo}` } },
          })),
      );
    m = /^\/pulls\/(\d+)(\/.*)?$/.exec(p);
    if (m) {
      const pr = this.pulls.get(Number(m[1]));
      if (!pr) return send(404, { message: 'Not Found' });
      const rest = m[2] ?? '';
      if (method === 'GET' && rest === '')
        return send(200, {
          number: pr.number,
          state: 'open',
          head: { sha: pr.head, ref: 'feature', repo: { full_name: pr.headRepo } },
          base: { sha: pr.base, ref: 'main', repo: { full_name: `${this.owner}/${this.repo}` } },
        });
      if (method === 'GET' && rest === '/files') return send(200, pr.files);
      if (method === 'GET' && rest === '/reviews')
        return send(
          200,
          this.reviews.filter((r) => r.pull === pr.number),
        );
      if (method === 'GET' && rest === '/comments')
        return send(
          200,
          this.comments.filter((c) => c.pull_number === pr.number),
        );
      if (method === 'POST' && rest === '/reviews') {
        const commit = String(b.commit_id ?? pr.head);
        if (!pr.heads.includes(commit))
          return send(422, {
            message: 'Unprocessable Entity',
            errors: ['commit_id is not part of the pull request'],
          });
        const comments = (b.comments as Record<string, unknown>[] | undefined) ?? [];
        for (const c of comments) {
          const bad = this.lineError(pr, commit, c);
          if (bad) return send(422, { message: 'Unprocessable Entity', errors: [bad] });
        }
        const review = {
          id: this.seq++,
          node_id: `PRR_${this.seq}`,
          pull: pr.number,
          user: who,
          body: String(b.body ?? ''),
          commit_id: commit,
          state: b.event === 'REQUEST_CHANGES' ? 'CHANGES_REQUESTED' : 'COMMENTED',
        };
        this.reviews.push(review);
        for (const c of comments) this.addComment(pr, commit, c, who, review.id);
        return send(200, review);
      }
      if (method === 'POST' && rest === '/comments') {
        const commit = String(b.commit_id);
        const bad = this.lineError(pr, commit, b);
        if (bad) return send(422, { message: 'Validation Failed', errors: [bad] });
        return send(201, this.addComment(pr, commit, b, who, null));
      }
      m = /^\/reviews\/(\d+)$/.exec(rest);
      if (m && method === 'PUT') {
        const r = this.reviews.find((x) => x.id === Number(m?.[1]));
        if (!r) return send(404, { message: 'Not Found' });
        if (r.user.login !== user.login) return send(403, { message: 'You can only edit your own review' });
        r.body = String(b.body);
        return send(200, r);
      }
    }
    m = /^\/pulls\/comments\/(\d+)$/.exec(p);
    if (m && method === 'PATCH') {
      const c = this.comments.find((x) => x.id === Number(m?.[1]));
      if (!c) return send(404, { message: 'Not Found' });
      if (c.user.login !== user.login) return send(403, { message: 'You can only edit your own comment' });
      c.body = String(b.body);
      return send(200, c);
    }
    m = /^\/commits\/([0-9a-f]{40})\/check-runs$/.exec(p);
    if (m && method === 'GET') {
      const sha = m[1];
      const name = url.searchParams.get('check_name');
      const runs = this.checkRuns.filter((c) => c.head_sha === sha && (!name || c.name === name)).reverse();
      return send(200, { total_count: runs.length, check_runs: runs });
    }
    if (p === '/check-runs' && method === 'POST') {
      if (!user.canCheck) return send(403, { message: 'Resource not accessible by integration' });
      const run = {
        id: this.seq++,
        head_sha: String(b.head_sha),
        name: String(b.name),
        external_id: String(b.external_id ?? ''),
        status: String(b.status),
        conclusion: (b.conclusion as string) ?? null,
        output: b.output as { title: string; summary: string },
      };
      this.checkRuns.push(run);
      return send(201, run);
    }
    m = /^\/check-runs\/(\d+)$/.exec(p);
    if (m && method === 'PATCH') {
      if (!user.canCheck) return send(403, { message: 'Resource not accessible by integration' });
      const run = this.checkRuns.find((c) => c.id === Number(m?.[1]));
      if (!run) return send(404, { message: 'Not Found' });
      Object.assign(run, { status: b.status, conclusion: b.conclusion, output: b.output });
      return send(200, run);
    }
    m = /^\/statuses\/([0-9a-f]{40})$/.exec(p);
    if (m && method === 'POST') {
      const s = {
        id: this.seq++,
        sha: m[1] as string,
        state: String(b.state),
        context: String(b.context),
        description: String(b.description ?? ''),
      };
      this.statuses.push(s);
      return send(201, s);
    }
    m = /^\/commits\/([0-9a-f]{40})\/statuses$/.exec(p);
    if (m && method === 'GET') return send(200, this.statuses.filter((s) => s.sha === m?.[1]).reverse());
    return send(404, { message: `fake GitHub has no route for ${method} ${url.pathname}` });
  }

  private lineError(pr: FakePull, commit: string, c: Record<string, unknown>): string | null {
    if (commit !== pr.head) return null;
    const file = pr.files.find((f) => f.filename === c.path);
    if (!file) return `pull_request_review_thread.path ${String(c.path)} is not part of the diff`;
    const lines = new Set<number>();
    let next = 0;
    for (const l of file.patch.split('\n')) {
      const h = /^@@ -\S+ \+(\d+)/.exec(l);
      if (h) next = Number(h[1]);
      else if (l.startsWith('+') || l.startsWith(' ')) lines.add(next++);
    }
    for (const n of [c.line, c.start_line].filter((x) => x !== undefined))
      if (!lines.has(Number(n)))
        return `pull_request_review_thread.line ${String(n)} must be part of the diff`;
    return null;
  }

  private addComment(
    pr: FakePull,
    commit: string,
    c: Record<string, unknown>,
    who: { login: string; type: string },
    reviewId: number | null,
  ): Comment {
    const id = this.seq++;
    const thread: Thread = {
      id: `PRRT_${id}`,
      pull: pr.number,
      comments: [id],
      isResolved: false,
      resolvedBy: null,
    };
    this.threads.push(thread);
    const comment: Comment = {
      id,
      node_id: `PRRC_${id}`,
      pull_number: pr.number,
      pull_request_review_id: reviewId,
      user: who,
      body: String(c.body),
      path: String(c.path),
      line: Number(c.line),
      start_line: c.start_line === undefined ? null : Number(c.start_line),
      side: 'RIGHT',
      commit_id: commit,
      thread: thread.id,
    };
    this.comments.push(comment);
    return comment;
  }

  private graphql(
    req: { query: string; variables: Record<string, unknown> },
    user: FakeUser,
    send: (s: number, d: unknown) => boolean,
  ): boolean {
    const q = req.query;
    const v = req.variables ?? {};
    if (
      /^\s*query revloopThreads\(\$owner: String!, \$name: String!, \$number: Int!, \$after: String\)/.test(q)
    ) {
      if (typeof v.number !== 'number') return this.gqlError(send, 'number must be an Int');
      const nodes = this.threads
        .filter((t) => t.pull === v.number)
        .map((t) => ({
          id: t.id,
          isResolved: t.isResolved,
          resolvedBy: t.resolvedBy ? { login: t.resolvedBy } : null,
          comments: { nodes: [{ databaseId: t.comments[0] }] },
        }));
      return send(200, {
        data: {
          repository: {
            pullRequest: { reviewThreads: { pageInfo: { hasNextPage: false, endCursor: null }, nodes } },
          },
        },
      });
    }
    if (
      /^\s*mutation revloopResolve\(\$threadId: ID!\)\s*\{\s*resolveReviewThread\(input: \{ threadId: \$threadId \}\)/.test(
        q,
      )
    ) {
      if (user.canWrite === false)
        return this.gqlError(send, 'Resource not accessible by integration', 'FORBIDDEN');
      const t = this.threads.find((x) => x.id === v.threadId);
      if (!t)
        return this.gqlError(
          send,
          `Could not resolve to a node with the global id of '${String(v.threadId)}'`,
          'NOT_FOUND',
        );
      Object.assign(t, { isResolved: true, resolvedBy: user.login });
      return send(200, { data: { resolveReviewThread: { thread: { id: t.id, isResolved: true } } } });
    }
    this.violations.push(`unknown GraphQL operation: ${q.slice(0, 80)}`);
    return this.gqlError(send, 'unknown operation');
  }

  private gqlError(send: (s: number, d: unknown) => boolean, message: string, type = 'INVALID'): boolean {
    if (type === 'INVALID') this.violations.push(`GraphQL: ${message}`);
    return send(200, { data: null, errors: [{ type, message }] });
  }
}
