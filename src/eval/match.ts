/**
 * Matching findings to known defects, one case and one reviewer at a time:
 * same file, line ranges overlapping once each side is widened by `window`
 * lines; each finding matches at most one defect and each defect at most one
 * finding of that reviewer (a second finding on the same defect is a
 * duplicate, not a second hit). Pure.
 */

export interface Span {
  file: string;
  line: number;
  endLine?: number | undefined;
}

/** Index pairs (finding, defect) that matched. */
export type Matching = { finding: number; defect: number }[];

export type Matcher = (findings: readonly Span[], defects: readonly Span[], window: number) => Matching;

const end = (s: Span) => Math.max(s.line, s.endLine ?? s.line);

/** Lines between the two ranges (0 when they overlap), or null when the files differ. */
export function gap(a: Span, b: Span): number | null {
  if (a.file !== b.file) return null;
  if (end(a) < b.line) return b.line - end(a);
  if (end(b) < a.line) return a.line - end(b);
  return 0;
}

/**
 * Nearest pairs first (ties by finding, then defect index), so the result
 * does not depend on the order reviewers listed their findings in beyond ties.
 */
export const matchFindings: Matcher = (findings, defects, window) => {
  const pairs: { finding: number; defect: number; gap: number }[] = [];
  findings.forEach((f, fi) => {
    defects.forEach((d, di) => {
      const g = gap(f, d);
      if (g !== null && g <= window) pairs.push({ finding: fi, defect: di, gap: g });
    });
  });
  pairs.sort((a, b) => a.gap - b.gap || a.finding - b.finding || a.defect - b.defect);
  const usedF = new Set<number>();
  const usedD = new Set<number>();
  const out: Matching = [];
  for (const p of pairs) {
    if (usedF.has(p.finding) || usedD.has(p.defect)) continue;
    usedF.add(p.finding);
    usedD.add(p.defect);
    out.push({ finding: p.finding, defect: p.defect });
  }
  return out.sort((a, b) => a.finding - b.finding);
};
