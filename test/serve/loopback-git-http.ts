/**
 * A loopback HTTPS-less git host: `git http-backend` behind a node server
 * that demands HTTP Basic credentials, as a forge's git endpoint does. Each
 * request's Authorization is recorded, so a test can tell that the
 * credential reached the server (and by which route it did not travel).
 */
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export class LoopbackGitHttp {
  /** Each request: its path and whether it carried the expected credential. */
  readonly requests: { path: string; authorized: boolean }[] = [];
  private server: Server | null = null;
  url = '';

  /** Serves the repositories under `projectRoot` to `username:password` only. */
  constructor(
    private readonly projectRoot: string,
    private readonly username: string,
    private readonly password: string,
  ) {}

  async start(): Promise<this> {
    const expected = `Basic ${Buffer.from(`${this.username}:${this.password}`).toString('base64')}`;
    this.server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      const authorized = req.headers.authorization === expected;
      this.requests.push({ path: url.pathname, authorized });
      if (!authorized) {
        res.writeHead(401, { 'www-authenticate': 'Basic realm="git"' });
        res.end('credentials required\n');
        return;
      }
      const cgi = spawn('git', ['http-backend'], {
        env: {
          PATH: process.env.PATH,
          GIT_PROJECT_ROOT: this.projectRoot,
          GIT_HTTP_EXPORT_ALL: '1',
          GIT_CONFIG_NOSYSTEM: '1',
          GIT_CONFIG_GLOBAL: '/dev/null',
          REQUEST_METHOD: req.method ?? 'GET',
          PATH_INFO: url.pathname,
          QUERY_STRING: url.search.slice(1),
          CONTENT_TYPE: req.headers['content-type'] ?? '',
          HTTP_CONTENT_ENCODING: String(req.headers['content-encoding'] ?? ''),
          GIT_PROTOCOL: String(req.headers['git-protocol'] ?? ''),
          REMOTE_USER: this.username,
          REMOTE_ADDR: '127.0.0.1',
        },
        stdio: ['pipe', 'pipe', 'ignore'],
      });
      req.pipe(cgi.stdin);
      let head = Buffer.alloc(0);
      let headerDone = false;
      cgi.stdout.on('data', (chunk: Buffer) => {
        if (headerDone) {
          res.write(chunk);
          return;
        }
        head = Buffer.concat([head, chunk]);
        const end = head.indexOf('\r\n\r\n');
        if (end < 0) return;
        headerDone = true;
        let status = 200;
        const headers: Record<string, string> = {};
        for (const line of head.subarray(0, end).toString('latin1').split('\r\n')) {
          const i = line.indexOf(':');
          const name = line.slice(0, i).trim();
          const value = line.slice(i + 1).trim();
          if (name.toLowerCase() === 'status') status = Number.parseInt(value, 10);
          else headers[name] = value;
        }
        res.writeHead(status, headers);
        res.write(head.subarray(end + 4));
      });
      cgi.on('close', () => res.end());
    });
    await new Promise<void>((ok) => this.server?.listen(0, '127.0.0.1', ok));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    await new Promise<void>((ok) => this.server?.close(() => ok()));
  }
}
