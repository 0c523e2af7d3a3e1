/** revloop's own TypeScript sources, for tests that read the code itself (import rules, labels, casts). */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

export const SRC = join(import.meta.dirname, '..', '..', 'src');

/** Every `.ts` file under `dir` (default: src/), recursively. */
export const sourceFiles = (dir: string = SRC): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
