/**
 * Static files the pages load: the compiled browser modules (the dashboard's
 * own client and, unchanged, the same `sim` and `analyze` modules the CLI
 * runs), zod's ESM build, and uPlot. Only files under a fixed list of
 * directories are served, so the route cannot read anything else from disk.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join, normalize, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Compiled modules the browser may import, relative to the asset root (dist/). */
const BROWSER_MODULES = [
  'web/client/',
  'sim/',
  'analyze/',
  'core/errors.js',
  // The stop rules are listed once there (sim's params import them).
  'core/choices.js',
  // Loop Lab's stop rule is the live loop's own (sim and analyze import it).
  'core/decide.js',
  'core/budget.js',
  'core/progress.js',
  // The round's one walk, which the simulator folds over as the driver does.
  'core/round-step.js',
  'core/round-order.js',
  'report/chart-terminal.js',
];

/** dist/ when this file runs compiled (dist/web/assets.js). */
export const defaultAssetRoot = (): string => fileURLToPath(new URL('../', import.meta.url));

const require = createRequire(import.meta.url);
const packageDir = (name: string): string => dirname(require.resolve(`${name}/package.json`));

export interface StaticFile {
  body: string;
  type: string;
}

const JS = 'text/javascript; charset=utf-8';
const CSS = 'text/css; charset=utf-8';

/** Resolves `rel` inside `root`, or null when it escapes or is not a plain relative path. */
function inside(root: string, rel: string): string | null {
  if (rel.includes('\0') || rel.startsWith('/') || rel.includes('\\')) return null;
  const p = normalize(join(root, rel));
  return p.startsWith(root.endsWith(sep) ? root : root + sep) ? p : null;
}

export interface AssetStore {
  /** A compiled browser module at `rel` (e.g. "sim/index.js"), or null. */
  module(rel: string): Promise<StaticFile | null>;
  /** A file of zod's ESM build, or null. */
  zod(rel: string): Promise<StaticFile | null>;
  uplotJs(): Promise<StaticFile | null>;
  uplotCss(): Promise<StaticFile | null>;
}

/** Reads (once) and serves the allowed files under `assetRoot` and the two packages. */
export function assetStore(assetRoot: string): AssetStore {
  const cache = new Map<string, Promise<StaticFile | null>>();
  const read = (path: string | null, type: string): Promise<StaticFile | null> => {
    if (path === null) return Promise.resolve(null);
    let hit = cache.get(path);
    if (!hit) {
      hit = readFile(path, 'utf8').then(
        (body) => ({ body, type }),
        () => null,
      );
      cache.set(path, hit);
    }
    return hit;
  };
  let zodDir: string | null = null;
  let uplotDir: string | null = null;
  return {
    module(rel) {
      if (!rel.endsWith('.js') || !BROWSER_MODULES.some((p) => rel.startsWith(p)))
        return Promise.resolve(null);
      return read(inside(assetRoot, rel), JS);
    },
    zod(rel) {
      if (!rel.endsWith('.js') || rel.startsWith('src/')) return Promise.resolve(null);
      zodDir ??= packageDir('zod');
      return read(inside(zodDir, rel), JS);
    },
    uplotJs() {
      uplotDir ??= packageDir('uplot');
      return read(join(uplotDir, 'dist', 'uPlot.iife.min.js'), JS);
    },
    uplotCss() {
      uplotDir ??= packageDir('uplot');
      return read(join(uplotDir, 'dist', 'uPlot.min.css'), CSS);
    },
  };
}
