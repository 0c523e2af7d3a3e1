/** Parser for `git status --porcelain=v1 -z`. */

export interface StatusEntry {
  path: string;
  /** The two-letter XY code, e.g. ` M`, `??`, `UU`. */
  code: string;
  conflict: boolean;
}

// Unmerged states, from git-status(1) "Short Format".
const CONFLICT = new Set(['DD', 'AU', 'UD', 'UA', 'DU', 'AA', 'UU']);

/** Parses porcelain v1 `-z` output: `XY path\0`, with an extra `orig\0` after renames and copies. */
export function parseStatus(out: string): StatusEntry[] {
  const parts = out.split('\0');
  const entries: StatusEntry[] = [];
  for (let i = 0; i < parts.length; i++) {
    const rec = parts[i] as string;
    if (rec.length < 4) continue;
    const code = rec.slice(0, 2);
    entries.push({ path: rec.slice(3), code, conflict: CONFLICT.has(code) });
    if (code.includes('R') || code.includes('C')) i++;
  }
  return entries;
}
