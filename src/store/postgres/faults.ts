/**
 * PostgreSQL and network failures as the store's named faults. The place is
 * named by host, port and database only: a password in the URL never reaches
 * a message, and is scrubbed from driver messages too.
 */
import { RevloopError } from '../../core/errors.js';
import {
  StoreCorruptError,
  StoreFullError,
  StoreLockedError,
  StoreReadonlyError,
  StoreUnavailableError,
} from '../errors.js';

/** `postgres://host:port/db` without user info. */
export function describePgUrl(url: string): string {
  try {
    const u = new URL(url);
    return `postgres://${u.hostname}${u.port ? `:${u.port}` : ''}${u.pathname}`;
  } catch {
    return 'postgres://(unparseable url)';
  }
}

function secretsOf(url: string): string[] {
  try {
    const u = new URL(url);
    return [u.password, decodeURIComponent(u.password)].filter((s) => s.length > 0);
  } catch {
    return [];
  }
}

const UNAVAILABLE = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'EAI_AGAIN',
  'EPIPE',
]);

export function mapPgFault(err: unknown, url: string): unknown {
  if (err instanceof RevloopError || !(err instanceof Error)) return err;
  const where = describePgUrl(url);
  let msg = err.message || String((err as { code?: unknown }).code ?? 'error');
  for (const s of secretsOf(url)) msg = msg.split(s).join('***');
  const code = String((err as { code?: unknown }).code ?? '');
  if (UNAVAILABLE.has(code) || (/connect|terminat|timeout/i.test(msg) && !code.match(/^[0-9A-Z]{5}$/)))
    return new StoreUnavailableError(where, msg);
  // SQLSTATE classes: 08 connection, 57P0x shutdown, 28 auth, 3D000 no such database, 25P03 a
  // transaction left idle past its bound (the server ended the session), 57014 a statement
  // ended by the statement timeout (a server too slow to answer, as good as gone for now).
  if (
    code.startsWith('08') ||
    code === '57014' ||
    /^57P0[1-4]$/.test(code) ||
    code.startsWith('28') ||
    code === '3D000' ||
    code === '25P03'
  )
    return new StoreUnavailableError(where, msg);
  if (code === '55P03') return new StoreLockedError(where, msg);
  if (code === '25006') return new StoreReadonlyError(where, msg);
  if (code === '53100') return new StoreFullError(where, msg);
  if (code === 'XX001' || code === 'XX002') return new StoreCorruptError(where, msg);
  return err;
}
