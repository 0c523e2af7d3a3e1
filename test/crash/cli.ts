/** The compiled CLI the crash tests drive as a child process (built by the suite's global set-up). */
import { join, resolve } from 'node:path';

export const ROOT = resolve(import.meta.dirname, '../..');
export const MAIN_JS = join(ROOT, 'dist/cli/main.js');

export { ensureBuilt } from '../helpers/build.js';
