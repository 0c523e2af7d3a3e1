#!/usr/bin/env node
// The installed `revloop`: the compiled CLI when this package was built (npm ci in a
// checkout, a project's git dependency), else the committed bundle, which needs no build:
// `npm install -g <git URL>` prepares the package without its dev dependencies in reach
// (scripts/prepare.mjs says why), so there is no dist/ to run.
import { existsSync } from 'node:fs';

const built = new URL('../dist/cli/main.js', import.meta.url);
await import(existsSync(built) ? built.href : new URL('../action/dist/revloop.mjs', import.meta.url).href);
