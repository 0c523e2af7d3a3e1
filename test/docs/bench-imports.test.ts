/**
 * `npm run bench` loads compiled modules by path (`dist('loop/…')`), which no
 * type checker sees: a module moved in src/ would break a benchmark silently
 * until someone ran it. Every path a benchmark names must exist in dist/.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../eval/support.js';

const files = ['bench', 'bench/lib'].flatMap((dir) =>
  readdirSync(join(ROOT, dir))
    .filter((f) => f.endsWith('.mjs'))
    .map((f) => join(dir, f)),
);

describe('benchmarks import what the build makes', () => {
  it.each(files)('%s', (file) => {
    const text = readFileSync(join(ROOT, file), 'utf8');
    const named = [
      ...[...text.matchAll(/\bdist\(\s*'([^']+)'\s*\)/g)].map((m) => m[1] as string),
      ...[...text.matchAll(/['"`](?:\.\.\/)+dist\/([^'"`$]+\.js)['"`]/g)].map((m) => m[1] as string),
    ];
    const missing = named.filter((p) => !existsSync(join(ROOT, 'dist', p)));
    expect(missing).toEqual([]);
  });
});
