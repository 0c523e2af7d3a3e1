/**
 * src/loop is a house of rooms, each with one reason to change: calls/ (one
 * agent call and its attempts), checkout/ (the run's checkout, the judge tree,
 * the pool), run/ (the driver, its context, the stages), outputs/ (what a run
 * leaves behind). A room is entered through its index.ts only, the rooms
 * depend on each other one way, and a call or a checkout takes a narrow
 * context of its own rather than the driver's whole RunContext.
 */
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SRC, sourceFiles } from '../helpers/source-files.js';

const LOOP = join(SRC, 'loop');
const ROOMS = ['calls', 'checkout', 'outputs', 'run'];

/** The room a file of src/loop is in, or '.' for the front door (operations, admission, compose, deps, errors). */
const roomOf = (file: string): string => {
  const parts = relative(LOOP, file).split('/');
  return parts.length > 1 ? (parts[0] as string) : '.';
};

/** Every relative import of a file, resolved to a .ts path. */
const importsOf = (file: string): string[] =>
  [...readFileSync(file, 'utf8').matchAll(/from '(\.[^']+)'/g)].map((m) =>
    resolve(dirname(file), m[1] as string).replace(/\.js$/, '.ts'),
  );

const loopFiles = sourceFiles(LOOP);

describe('the rooms of src/loop', () => {
  it('are the folders there, each with an index', () => {
    const found = [...new Set(loopFiles.map(roomOf))].filter((r) => r !== '.').sort();
    expect(found).toEqual(ROOMS);
    for (const room of ROOMS) expect(loopFiles).toContain(join(LOOP, room, 'index.ts'));
  });

  it('are entered through their index only', () => {
    const offenders = loopFiles.flatMap((file) =>
      importsOf(file)
        .filter((target) => target.startsWith(`${LOOP}/`))
        .filter((target) => roomOf(target) !== '.' && roomOf(target) !== roomOf(file))
        .filter((target) => target !== join(LOOP, roomOf(target), 'index.ts'))
        .map((target) => `${relative(LOOP, file)} -> ${relative(LOOP, target)}`),
    );
    expect(offenders).toEqual([]);
  });

  it('depend on each other one way: calls and outputs on no room, checkout on calls, run on the three', () => {
    const uses = new Map<string, Set<string>>(ROOMS.map((r) => [r, new Set()]));
    for (const file of loopFiles) {
      const from = roomOf(file);
      if (from === '.') continue;
      for (const target of importsOf(file)) {
        const to = target.startsWith(`${LOOP}/`) ? roomOf(target) : '.';
        if (to !== '.' && to !== from) uses.get(from)?.add(to);
      }
    }
    const sorted = Object.fromEntries([...uses].map(([r, s]) => [r, [...s].sort()]));
    expect(sorted).toEqual({
      calls: [],
      checkout: ['calls'],
      outputs: [],
      run: ['calls', 'checkout', 'outputs'],
    });
  });

  it("a call and the checkout work take narrow contexts, never the driver's RunContext", () => {
    for (const room of ['calls', 'checkout']) {
      const wide = sourceFiles(join(LOOP, room)).filter((f) =>
        /\bRunContext\b/.test(readFileSync(f, 'utf8')),
      );
      // Only comments may name it (what satisfies the narrow context).
      for (const f of wide)
        expect(readFileSync(f, 'utf8')).not.toMatch(
          /import[^;]*\bRunContext\b|:\s*RunContext\b|<RunContext\b/,
        );
    }
  });
});
