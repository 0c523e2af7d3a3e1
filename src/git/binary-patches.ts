/**
 * The canonical diff as prompts carry it. The canonical diff is written with
 * `--binary`, and its digest stays of those bytes (the snapshot's and every
 * record's). But a binary file's patch is base85: no reviewer can read it,
 * it costs tokens by the kilobyte in every call of every round, and a 300 KB
 * image made a 387 KB section, over `review.chunkBytes` on its own, so the
 * run failed `missing_context`. In prompts, each binary file's `GIT binary
 * patch` and its data lines become the one line git itself writes without
 * `--binary` (`Binary files a/x and b/x differ`): a reviewer is told the file
 * changed, with its blob ids in the `index` line, as a person reading
 * `git diff` is. Pure over text; a diff without binary patches is returned as
 * it is (same prompts, same call keys).
 */
import { FILE_HEADER, headerNames } from './diff-parse.js';
import { firstLine } from './diff-sections.js';

/** A line no hunk line can be (those start with ' ', '+', '-' or '\'), nor a header line. */
export const BINARY_PATCH_MARK = '\nGIT binary patch\n';

export function withoutBinaryPatches(diff: string): string {
  let mark = diff.indexOf(BINARY_PATCH_MARK);
  if (mark === -1) return diff;
  const out: string[] = [];
  let from = 0;
  while (mark !== -1) {
    // The section's header: from its `diff --git` line to the marker. base85 lines hold no
    // space, so the next `diff --git ` line is the next file's.
    const start = diff.lastIndexOf(`\n${FILE_HEADER}`, mark) + 1;
    const next = diff.indexOf(`\n${FILE_HEADER}`, mark + 1);
    const end = next === -1 ? diff.length : next + 1;
    out.push(diff.slice(from, mark + 1), binaryLine(diff.slice(start, mark + 1)));
    from = end;
    mark = next === -1 ? -1 : diff.indexOf(BINARY_PATCH_MARK, next);
  }
  out.push(diff.slice(from));
  return out.join('');
}

/** git's line for a binary change, from the section's header. */
function binaryLine(header: string): string {
  let [a, b] = headerNames(firstLine(header));
  if (header.includes('\nnew file mode ')) a = '/dev/null';
  if (header.includes('\ndeleted file mode ')) b = '/dev/null';
  return `Binary files ${a} and ${b} differ\n`;
}
