/**
 * Comments in src/ say why in words a newcomer has: never "issue 17", "stop
 * 27" or "P9", labels that point to a history the reader does not have.
 */
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sourceFiles } from '../helpers/source-files.js';

const ROOT = join(import.meta.dirname, '..', '..');

describe('src/ carries no work-history labels', () => {
  it('no "issue N", "stop N" or "P<n>" label in any source file', () => {
    const label = /\b(issue|stop) \d+\b|\bP\d\b/i;
    const hits = sourceFiles().flatMap((f) =>
      readFileSync(f, 'utf8')
        .split('\n')
        .flatMap((line, i) => (label.test(line) ? [`${relative(ROOT, f)}:${i + 1}: ${line.trim()}`] : [])),
    );
    expect(hits).toEqual([]);
  });
});
