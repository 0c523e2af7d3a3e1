/**
 * No import runs up the layers: the folders of src/ import each other one
 * way only, so they stack (docs/architecture.md's layout). madge finds file
 * cycles; this finds a folder that reaches back up into one that uses it,
 * which madge cannot see when the files involved differ.
 */
import { readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SRC, sourceFiles } from '../helpers/source-files.js';

/** The top folder of src/ a file is in ('.' for a file at the root, version.ts). */
const folderOf = (file: string): string => {
  const parts = relative(SRC, file).split('/');
  return parts.length > 1 ? (parts[0] as string) : '.';
};

/** folder -> folder -> the files that make the edge. */
function folderGraph(): Map<string, Map<string, string[]>> {
  const graph = new Map<string, Map<string, string[]>>();
  for (const file of sourceFiles()) {
    for (const m of readFileSync(file, 'utf8').matchAll(/from '(\.[^']+)'/g)) {
      const target = resolve(dirname(file), m[1] as string);
      if (!target.startsWith(`${SRC}/`)) continue;
      const [a, b] = [folderOf(file), folderOf(target)];
      if (a === b || b === '.') continue;
      const edges = graph.get(a) ?? new Map<string, string[]>();
      edges.set(b, [...(edges.get(b) ?? []), relative(SRC, file)]);
      graph.set(a, edges);
    }
  }
  return graph;
}

/** A cycle of folders, each with a file that makes its edge, or null. */
function findCycle(graph: Map<string, Map<string, string[]>>): string[] | null {
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (node: string): string[] | null => {
    if (state.get(node) === 'done') return null;
    if (state.get(node) === 'open') return [...path.slice(path.indexOf(node)), node];
    state.set(node, 'open');
    path.push(node);
    for (const next of graph.get(node)?.keys() ?? []) {
      const found = visit(next);
      if (found) return found;
    }
    path.pop();
    state.set(node, 'done');
    return null;
  };
  for (const node of graph.keys()) {
    const found = visit(node);
    if (found)
      return found.map((f, i) =>
        i + 1 < found.length ? `${f} (${graph.get(f)?.get(found[i + 1] as string)?.[0]})` : f,
      );
  }
  return null;
}

describe('the layers of src/', () => {
  it('no folder imports one that imports it, however far round', () => {
    expect(findCycle(folderGraph())).toBeNull();
  });

  it('core imports nothing outside itself; ports and io only core', () => {
    const graph = folderGraph();
    expect([...(graph.get('core')?.keys() ?? [])]).toEqual([]);
    expect([...(graph.get('ports')?.keys() ?? [])]).toEqual(['core']);
    expect([...(graph.get('io')?.keys() ?? [])]).toEqual(['core']);
  });

  it('the check sees a folder that reaches back up', () => {
    const graph = folderGraph();
    graph.get('core')?.set('loop', ['core/made-up.ts']) ??
      graph.set('core', new Map([['loop', ['core/made-up.ts']]]));
    expect(findCycle(graph)?.join(' -> ')).toContain('core (core/made-up.ts) -> loop');
  });
});
