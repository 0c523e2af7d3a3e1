#!/usr/bin/env node
// Writes schema/revloop.config.schema.json from the config schema in
// src/core/config.ts (via dist/). `npm run build` runs it; a test checks the
// shipped file is current.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { configJsonSchema } from '../dist/core/config.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const schema = {
  $id: 'https://revloop.dev/schema/revloop.config.schema.json',
  title: 'revloop.config.yaml',
  ...configJsonSchema(),
};
mkdirSync(join(root, 'schema'), { recursive: true });
writeFileSync(join(root, 'schema', 'revloop.config.schema.json'), `${JSON.stringify(schema, null, 2)}\n`);

// The eval corpus format (docs/eval.md), from src/eval/corpus-schema.ts.
const { corpusJsonSchema } = await import('../dist/eval/corpus-schema.js');
writeFileSync(
  join(root, 'schema', 'revloop.corpus.schema.json'),
  `${JSON.stringify({ $id: 'https://revloop.dev/schema/revloop.corpus.schema.json', title: 'revloop eval corpus', ...corpusJsonSchema() }, null, 2)}\n`,
);
