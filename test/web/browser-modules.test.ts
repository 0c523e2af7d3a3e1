/**
 * The dashboard's pages import compiled modules through the asset route, which
 * serves only an allow-list. A new import in a module the pages load (core's
 * decide.ts gained budget.js) must be served too, or the page silently renders
 * nothing. This walks the real import graph of dist/ from the page entries.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, posix, relative } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { assetStore, defaultAssetRoot } from '../../src/web/assets.js';
import { ensureBuilt } from '../loop/helpers.js';

const root = join(import.meta.dirname, '..', '..', 'dist');

/** Relative ESM imports of one compiled module (static `import`/`export … from`, and `import()`). */
function relativeImports(file: string): string[] {
  const src = readFileSync(file, 'utf8');
  const out: string[] = [];
  const re = /(?:\bfrom\s*|\bimport\s*\(?\s*)['"](\.{1,2}\/[^'"]+)['"]/g;
  for (let m = re.exec(src); m; m = re.exec(src)) if (m[1]) out.push(m[1]);
  return out;
}

describe('dashboard browser modules', () => {
  beforeAll(ensureBuilt, 600_000);

  it('serves every module the pages import, transitively', async () => {
    expect(defaultAssetRoot()).toBeTruthy();
    const assets = assetStore(root + posix.sep);
    const entries = readdirSync(join(root, 'web', 'client'))
      .filter((f) => f.endsWith('.js'))
      .map((f) => join(root, 'web', 'client', f));
    const seen = new Set<string>();
    const queue = [...entries];
    const missing: string[] = [];
    while (queue.length > 0) {
      const file = queue.pop()!;
      const rel = relative(root, file).split('\\').join('/');
      if (seen.has(rel)) continue;
      seen.add(rel);
      if (!existsSync(file) || (await assets.module(rel)) === null) {
        missing.push(rel);
        continue;
      }
      for (const spec of relativeImports(file)) queue.push(join(dirname(file), spec));
    }
    expect(missing).toEqual([]);
    expect(seen.size).toBeGreaterThan(entries.length);
  });
});
