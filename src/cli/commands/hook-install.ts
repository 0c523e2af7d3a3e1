/** `revloop hook install`: writes the pre-push hook that requires a verifying record. */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createGit } from '../../git/index.js';
import { HookExistsError, installPrePushHook } from '../../record/hook.js';
import type { Command } from '../io.js';

interface Opts {
  repo?: string;
  force?: boolean;
}

const hookInstall: Command<Opts> = async (_args, opts, io) => {
  const root = await createGit().root(resolve(io.cwd, opts.repo ?? '.'));
  // Compiled, this file is dist/cli/commands/hook-install.js beside main.js; bundled
  // (action/dist/revloop.mjs), it is the CLI itself.
  const compiled = fileURLToPath(new URL('../main.js', import.meta.url));
  const main = existsSync(compiled) ? compiled : fileURLToPath(import.meta.url);
  try {
    const r = installPrePushHook({ root, node: process.execPath, main, force: Boolean(opts.force) });
    const how =
      r.replaced === 'foreign' ? ' (replaced an existing hook)' : r.replaced === 'ours' ? ' (updated)' : '';
    io.stdout(`revloop hook install: wrote ${r.path}${how}\n`);
    return 0;
  } catch (err) {
    if (!(err instanceof HookExistsError)) throw err;
    io.stderr(`revloop hook install: ${err.message}\n`);
    return 2;
  }
};

export default hookInstall;
