#!/usr/bin/env node
/**
 * Builds the GitHub Action's committed entry (action/dist/): `index.mjs`, the
 * action itself, and `revloop.mjs`, the whole CLI in one file, so
 * `uses: <owner>/revloop@<ref>` and a GitLab job run from a clone with no
 * `npm install` (docs/decisions/0185-the-action-ships-a-committed-bundle.md).
 * The output depends only on the sources and the locked dependencies: no
 * timestamps, paths relative to the repository, a fixed order. The SQLite
 * driver is native, so it is not bundled: src/store/sqlite/bundled-driver.ts
 * stands in for it and loads it at run time, only when a command opens a ledger.
 *
 * Usage: node scripts/bundle.mjs [OUTDIR]   (default: action/dist)
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const outdir = resolve(process.argv[2] ?? resolve(root, 'action/dist'));

const driverShim = {
  name: 'sqlite-driver-at-run-time',
  setup(b) {
    b.onResolve({ filter: /^better-sqlite3$/ }, (args) =>
      args.importer.endsWith('bundled-driver.ts')
        ? { path: 'better-sqlite3', external: true }
        : { path: resolve(root, 'src/store/sqlite/bundled-driver.ts') },
    );
  },
};

// main.ts loads each command by a template import of its compiled name (`./commands/${name}.js`),
// which esbuild can only expand to the files it matches: the sources are .ts.
const commandsGlob = {
  name: 'commands-from-sources',
  setup(b) {
    b.onLoad({ filter: /[\\/]src[\\/]cli[\\/]main\.ts$/ }, async (args) => {
      const text = await readFile(args.path, 'utf8');
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the source text of a template import
      const from = 'import(`./commands/${name}.js`)';
      if (!text.includes(from))
        throw new Error(`scripts/bundle.mjs: ${from} is no longer in src/cli/main.ts`);
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the same import, of the sources
      return { contents: text.replace(from, 'import(`./commands/${name}.ts`)'), loader: 'ts' };
    });
  },
};

await build({
  absWorkingDir: root,
  entryPoints: { index: 'src/action/main.ts', revloop: 'src/cli/main.ts' },
  outdir,
  outExtension: { '.js': '.mjs' },
  bundle: true,
  // Paths in the output are as seen from the tree, not where a symlinked node_modules points.
  preserveSymlinks: true,
  platform: 'node',
  format: 'esm',
  target: 'node22',
  // CommonJS dependencies call require() for Node's own modules: give the ESM bundle one.
  banner: {
    js: "import { createRequire as __revloopRequire } from 'node:module';\nconst require = __revloopRequire(import.meta.url);",
  },
  plugins: [driverShim, commandsGlob],
  legalComments: 'eof',
  charset: 'utf8',
  logLevel: 'warning',
});
