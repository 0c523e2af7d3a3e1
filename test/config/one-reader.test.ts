/**
 * One module reads revloop's config: src/config. The config at a commit, in
 * the working tree, and `verify`'s fast path all go through it, so no other
 * source file imports the yaml package (the config is the only YAML revloop
 * reads), and inside it one file parses. It sits above core, ports and io
 * and below everything that reads a config, so nothing beneath imports it.
 */
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SRC, sourceFiles } from '../helpers/source-files.js';

const YAML_IMPORT =
  /\bfrom\s+['"]yaml['"]|\bimport\s*\(\s*['"]yaml['"]\s*\)|\brequire\s*\(\s*['"]yaml['"]\s*\)/;
/** Every module a file imports, statically or dynamically. */
const importsOf = (text: string): string[] =>
  [...text.matchAll(/\b(?:from|import)\s*\(?\s*['"]([^'"]+)['"]/g)].map((m) => m[1] as string);

const rel = (f: string): string => relative(SRC, f);

describe('one config reader', () => {
  it('no source file outside src/config imports the yaml package', () => {
    const hits = sourceFiles()
      .filter((f) => !rel(f).startsWith('config/'))
      .filter((f) => YAML_IMPORT.test(readFileSync(f, 'utf8')))
      .map(rel);
    expect(hits).toEqual([]);
  });

  it('inside src/config, only document.ts parses with it', () => {
    const hits = sourceFiles(join(SRC, 'config'))
      .filter((f) => YAML_IMPORT.test(readFileSync(f, 'utf8')))
      .map(rel);
    expect(hits).toEqual(['config/document.ts']);
  });

  it('imports only core, ports, io and node from revloop', () => {
    const outside = sourceFiles(join(SRC, 'config')).flatMap((f) =>
      importsOf(readFileSync(f, 'utf8'))
        .filter((m) => m.startsWith('.') && !/^\.\/|^\.\.\/(core|ports|io)\//.test(m))
        .map((m) => `${rel(f)} imports ${m}`),
    );
    expect(outside).toEqual([]);
  });

  it('nothing below it imports it', () => {
    const below = ['core', 'ports', 'io', 'store', 'git'];
    const hits = below.flatMap((dir) =>
      sourceFiles(join(SRC, dir)).flatMap((f) =>
        importsOf(readFileSync(f, 'utf8'))
          .filter((m) => /^(\.\.\/)+config\//.test(m))
          .map((m) => `${rel(f)} imports ${m}`),
      ),
    );
    expect(hits).toEqual([]);
  });
});
