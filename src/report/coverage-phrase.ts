/** How every report names what a review covered (no partial review goes unsaid): the review body, the job summary. */
import type { CoverageSummary } from '../core/coverage.js';

/** "4 of 4 file(s) reviewed by every reviewer; 9 left out by `ignore:`" (a clear on a partly ignored change says so). */
export function coveragePhrase(c: CoverageSummary): string {
  const reviewed = `${c.reviewedByAll} of ${c.kept} file(s) reviewed by every reviewer`;
  return c.ignored.length > 0 ? `${reviewed}; ${c.ignored.length} left out by \`ignore:\`` : reviewed;
}

/** Ignored files a report names; the record and `revloop export` hold them all. */
const IGNORED_LISTED = 50;

/**
 * The files the ignore rules left out, as a collapsed Markdown list (the
 * first IGNORED_LISTED), each path and rule through the report's own `code`
 * (each escapes model and repository text its own way). Empty when none.
 */
export function ignoredDetails(ignored: CoverageSummary['ignored'], code: (s: string) => string): string[] {
  if (ignored.length === 0) return [];
  return [
    `<details><summary>Left out by the config's ignore rules (${ignored.length})</summary>`,
    '',
    ...ignored.slice(0, IGNORED_LISTED).map((i) => `- ${code(i.path)}: ${code(i.rule)}`),
    ...(ignored.length > IGNORED_LISTED
      ? [`- … and ${ignored.length - IGNORED_LISTED} more (the record lists every one)`]
      : []),
    '',
    '</details>',
    '',
  ];
}
