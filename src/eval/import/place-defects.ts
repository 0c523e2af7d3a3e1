/**
 * A benchmark's comment locations checked against the head the case reviews.
 * A human review comment can sit on a line the head no longer has (GitHub's
 * left side: a removed line) or on a file the head deleted; `revloop eval`
 * would refuse such a case outright (a defect outside its file). Such a
 * comment is still a known defect of the change, so it is kept as prose for
 * the judge instead: without its line, or, when the file is gone, without
 * its file (named in the description).
 */
import type { GitBlobs } from '../../ports/git.js';
import type { Defect } from '../corpus-schema.js';

const lineCount = (b: Buffer): number => {
  const text = b.toString('utf8');
  if (text === '') return 0;
  return text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
};

export async function placeDefects(
  git: GitBlobs,
  repo: string,
  head: string,
  defects: Defect[],
): Promise<{ defects: Defect[]; unplaced: number }> {
  const lines = new Map<string, number | null>();
  let unplaced = 0;
  const placed: Defect[] = [];
  for (const d of defects) {
    if (d.file === undefined) {
      placed.push(d);
      continue;
    }
    if (!lines.has(d.file)) {
      const blob = await git.readFile(repo, head, d.file);
      lines.set(d.file, blob === null ? null : lineCount(blob));
    }
    const n = lines.get(d.file) ?? null;
    const { file, line, endLine, ...rest } = d;
    if (n === null) {
      unplaced++;
      placed.push({ ...rest, description: `(on ${file}, not in the head) ${rest.description}` });
    } else if ((endLine ?? line ?? 0) > n) {
      unplaced++;
      placed.push({ ...rest, file });
    } else placed.push(d);
  }
  return { defects: placed, unplaced };
}
