/** Vitest global set-up: dist/ is fresh before any test file runs (test/helpers/build.ts says why). */
import { buildIfStale } from './helpers/build.js';

export default function setup(): void {
  buildIfStale();
}
