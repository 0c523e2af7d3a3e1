/**
 * DESIGN.md, reviewer protocol: paths in findings name a file and lines that
 * exist at the revision. A finding on a file or a line that is not there
 * cannot be judged, fixed or shown at its place: the reply is malformed.
 */
import type { ReportedFinding } from './types.js';

/** Lines of a file as an editor numbers them: a last line without a newline still counts. */
export function lineCount(content: Uint8Array): number {
  let n = 0;
  for (const b of content) if (b === 10) n++;
  return content.length > 0 && content[content.length - 1] !== 10 ? n + 1 : n;
}

/**
 * A backslash is part of a file's name in git, not a separator: a reviewer
 * writing Windows paths is told why its path names nothing, rather than
 * having it silently read as another file.
 */
const separatorHint = (file: string): string =>
  file.includes('\\') ? " (a backslash is part of a name; paths are separated by '/')" : '';

/**
 * The first finding that names what the revision does not have, as a
 * `$.findings.N.field: ...` detail, or null. `linesOf` gives a path's line
 * count at the revision, null when it is not a file there. An empty file has
 * line 1 (a remark on the whole of it).
 */
export function findingLinesProblem(
  findings: readonly Pick<ReportedFinding, 'file' | 'line' | 'endLine'>[],
  linesOf: (file: string) => number | null,
  revision: string,
): string | null {
  const at = revision.slice(0, 12);
  for (const [i, f] of findings.entries()) {
    const n = linesOf(f.file);
    if (n === null) return `$.findings.${i}.file: ${f.file} is not a file at ${at}${separatorHint(f.file)}`;
    const last = Math.max(1, n);
    const past = (field: string, line: number) =>
      `$.findings.${i}.${field}: line ${line} is past the end of ${f.file} (${n} line${n === 1 ? '' : 's'} at ${at})`;
    if (f.line > last) return past('line', f.line);
    if (f.endLine !== undefined && f.endLine < f.line)
      return `$.findings.${i}.endLine: ${f.endLine} is before line ${f.line}`;
    if (f.endLine !== undefined && f.endLine > last) return past('endLine', f.endLine);
  }
  return null;
}
