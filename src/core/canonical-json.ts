/**
 * Canonical JSON (sorted keys, no whitespace, undefined dropped) so that equal
 * data always hashes equal: snapshot keys, call keys and admission keys rely on it.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') {
    if (typeof value === 'number' && !Number.isFinite(value))
      throw new TypeError('non-finite number in canonical JSON');
    return JSON.stringify(value) ?? 'null';
  }
  if (Array.isArray(value))
    return `[${value.map((v) => (v === undefined ? 'null' : canonicalJson(v))).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}

/** A hash function passed into the core (sha256 hex in production). */
/** A content hash, of text (as UTF-8) or of the same bytes already encoded: both give one digest. */
export type Hash = (data: string | Uint8Array) => string;
