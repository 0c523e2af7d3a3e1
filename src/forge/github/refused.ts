/** Turns an octokit failure into a ForgeRefusedError naming what was refused, without the request's headers. */
import { ForgeRefusedError } from '../errors.js';

interface OctokitFailure {
  status?: number;
  message?: string;
  response?: { data?: { message?: string; errors?: unknown[] } };
}

export function refusal(what: string, written: number, err: unknown): ForgeRefusedError {
  const e = err as OctokitFailure;
  const data = e?.response?.data;
  const detail = [data?.message ?? e?.message ?? String(err), ...(data?.errors ?? []).map(errorText)]
    .filter(Boolean)
    .join('; ')
    .replace(/\s+/g, ' ')
    .slice(0, 500);
  return new ForgeRefusedError(typeof e?.status === 'number' ? e.status : null, what, detail, written);
}

export const refused =
  (what: string, written: number) =>
  (err: unknown): never => {
    throw refusal(what, written, err);
  };

function errorText(e: unknown): string {
  if (typeof e === 'string') return e;
  const o = e as { message?: string; field?: string; code?: string } | null;
  return o?.message ?? [o?.field, o?.code].filter(Boolean).join(' ');
}
