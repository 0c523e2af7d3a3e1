/**
 * The dashboard's defences: it binds to loopback, so the threats are a page on
 * another origin (CSRF: answered by the per-process token on the one write)
 * and DNS rebinding (a foreign name resolving to 127.0.0.1: answered by
 * refusing any Host header but the bound address).
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { networkInterfaces } from 'node:os';

/** Header the page sends its token in. */
export const TOKEN_HEADER = 'x-revloop-token';

/** A fresh random token for this process. */
export const newToken = (): string => randomBytes(24).toString('base64url');

/** Constant-time comparison; a missing or differently sized token is simply wrong. */
export function tokenMatches(expected: string, got: string | undefined | null): boolean {
  if (!got) return false;
  const a = Buffer.from(expected);
  const b = Buffer.from(got);
  return a.length === b.length && timingSafeEqual(a, b);
}

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);
const WILDCARD = new Set(['0.0.0.0', '::']);

const withPort = (addr: string, port: number): string => `${addr.includes(':') ? `[${addr}]` : addr}:${port}`;

/**
 * Host headers a bound address answers to: the address itself with its port,
 * and `localhost:port` when the address is loopback (the name cannot be
 * rebound to another machine's page, it never leaves the host). A wildcard
 * bind (`--host 0.0.0.0`) answers to this machine's own interface addresses,
 * never to a name.
 */
export function allowedHosts(host: string, port: number): string[] {
  const bare = host.startsWith('[') ? host.slice(1, -1) : host;
  const out = [withPort(bare, port)];
  if (LOOPBACK.has(bare) || WILDCARD.has(bare))
    out.push(`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`);
  if (WILDCARD.has(bare)) {
    for (const list of Object.values(networkInterfaces()))
      for (const a of list ?? []) out.push(withPort(a.address.split('%')[0]!, port));
  }
  return [...new Set(out.map((h) => h.toLowerCase()))];
}

/** Whether a request's Host header names one of the allowed hosts. */
export const hostAllowed = (allowed: readonly string[], header: string | undefined): boolean =>
  header !== undefined && allowed.includes(header.trim().toLowerCase());

/** The Content-Security-Policy of every response; `scriptHashes` admit the one inline import map. */
export function contentSecurityPolicy(scriptHashes: readonly string[]): string {
  const scripts = ["'self'", ...scriptHashes.map((h) => `'sha256-${h}'`)].join(' ');
  return [
    "default-src 'none'",
    `script-src ${scripts}`,
    "style-src 'self'",
    "img-src 'self' data:",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}
