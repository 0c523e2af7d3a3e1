/**
 * The committed entry (action/dist/) is what `npm run bundle` builds from
 * the sources of the same commit, byte for byte: the Action runs the bundle,
 * so a source change that was not rebuilt would ship the old behaviour. The
 * build is deterministic (two builds agree) and depends on no path of the
 * machine that made it (a copy of the tree elsewhere builds the same bytes).
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from '../loop/helpers.js';

const COMMITTED = join(ROOT, 'action/dist');
const temp = mkdtempSync(join(tmpdir(), 'revloop-bundle-'));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

/** Runs scripts/bundle.mjs of the tree at `root` into a fresh folder and returns that folder. */
function bundle(root: string, name: string): string {
  const out = join(temp, name);
  execFileSync(process.execPath, [join(root, 'scripts/bundle.mjs'), out], { cwd: root, stdio: 'pipe' });
  return out;
}

/** The files of `dir` that differ from the committed bundle (missing or extra ones included). */
function differences(dir: string): string[] {
  const names = new Set([...readdirSync(COMMITTED), ...readdirSync(dir)]);
  const read = (d: string, f: string) => {
    try {
      return readFileSync(join(d, f));
    } catch {
      return null;
    }
  };
  return [...names].filter((f) => {
    const a = read(COMMITTED, f);
    const b = read(dir, f);
    return !a || !b || !a.equals(b);
  });
}

/** A copy of the tree the bundle is built from, somewhere else, sharing node_modules. */
function copyOfTree(): string {
  const root = join(temp, 'tree');
  for (const p of ['src', 'scripts', 'package.json', 'tsconfig.json'])
    cpSync(join(ROOT, p), join(root, p), { recursive: true });
  symlinkSync(join(ROOT, 'node_modules'), join(root, 'node_modules'));
  return root;
}

describe('action/dist', () => {
  it('equals a fresh build of this tree (run `npm run bundle` and commit action/dist/ when it does not)', () => {
    expect(differences(bundle(ROOT, 'fresh'))).toEqual([]);
  }, 120_000);

  it('is the same bytes built from another path, and differs once a source change is not rebuilt', () => {
    const root = copyOfTree();
    expect(differences(bundle(root, 'elsewhere'))).toEqual([]);
    const file = join(root, 'src/action/summary.ts');
    const text = readFileSync(file, 'utf8');
    writeFileSync(file, text.replace('revloop verify: ok', 'revloop verify: OK'));
    expect(differences(bundle(root, 'changed'))).toEqual(['index.mjs']);
  }, 120_000);
});
