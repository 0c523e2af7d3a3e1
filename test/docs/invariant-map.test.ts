/**
 * docs/architecture.md maps each invariant of DESIGN.md to the one file and
 * function that enforces it (issue 16). This test parses that table and checks
 * each row against the code, so the map cannot rot silently when code moves:
 * a failing row names the invariant, the file and the name to update.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const HEADING = '## Invariant -> file / function that enforces it';
/** DESIGN.md's invariants, numbered 1 to 19. */
const INVARIANTS = 19;

interface Row {
  n: number;
  invariant: string;
  file: string;
  fn: string;
}

function mapRows(): Row[] {
  const doc = readFileSync(join(ROOT, 'docs', 'architecture.md'), 'utf8');
  const start = doc.indexOf(HEADING);
  if (start < 0) throw new Error(`docs/architecture.md has no section "${HEADING}"`);
  const body = doc.slice(start + HEADING.length);
  const end = body.search(/^## /m);
  return (end < 0 ? body : body.slice(0, end))
    .split('\n')
    .filter((line) => /^\| \d+ \|/.test(line))
    .map((line) => {
      const [n, invariant, file, fn] = line
        .split('|')
        .slice(1, 5)
        .map((c) => c.trim().replace(/^`|`$/g, ''));
      return { n: Number(n), invariant: invariant ?? '', file: file ?? '', fn: fn ?? '' };
    });
}

const hasExport = (node: ts.Node): boolean =>
  ts.canHaveModifiers(node) &&
  (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);

/** The module's exported names, and for each exported class its member names. */
function exportsOf(path: string): { names: Set<string>; members: Map<string, Set<string>> } {
  const source = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true);
  const names = new Set<string>();
  const members = new Map<string, Set<string>>();
  for (const st of source.statements) {
    if (ts.isExportDeclaration(st) && st.exportClause && ts.isNamedExports(st.exportClause)) {
      for (const el of st.exportClause.elements) names.add(el.name.text);
      continue;
    }
    if (!hasExport(st)) continue;
    if (ts.isFunctionDeclaration(st) && st.name) names.add(st.name.text);
    if (ts.isVariableStatement(st))
      for (const d of st.declarationList.declarations) if (ts.isIdentifier(d.name)) names.add(d.name.text);
    if (ts.isClassDeclaration(st) && st.name) {
      names.add(st.name.text);
      const own = new Set<string>();
      for (const m of st.members) if (m.name && ts.isIdentifier(m.name)) own.add(m.name.text);
      members.set(st.name.text, own);
    }
  }
  return { names, members };
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

const rows = mapRows();
const src = sourceFiles(join(ROOT, 'src')).map((path) => ({
  path: relative(ROOT, path),
  text: readFileSync(path, 'utf8'),
}));

describe('the invariant map in docs/architecture.md', () => {
  it(`has one row for each of the ${INVARIANTS} invariants, in DESIGN.md's order`, () => {
    expect(rows.map((r) => r.n)).toEqual(Array.from({ length: INVARIANTS }, (_, i) => i + 1));
    for (const r of rows) expect([r.n, r.invariant.length > 0, r.file, r.fn]).not.toContain('');
  });

  it.each(rows.map((r) => [r.n, r.file, r.fn, r] as const))(
    'invariant %i: %s exports %s, and the code calls it',
    (_n, file, fn, row) => {
      const path = join(ROOT, file);
      expect(existsSync(path), `invariant ${row.n} (${row.invariant}): ${file} does not exist`).toBe(true);
      const { names, members } = exportsOf(path);
      const [owner, method] = fn.includes('.') ? fn.split('.') : [fn, undefined];
      expect(names.has(owner ?? ''), `invariant ${row.n}: ${file} exports no ${owner}`).toBe(true);
      if (method) {
        expect(members.get(owner ?? '')?.has(method), `invariant ${row.n}: ${owner} has no ${method}`).toBe(
          true,
        );
      }
      // Named code that nothing calls enforces nothing: its name is called somewhere in src/.
      const called = new RegExp(`${method ? '\\.' : '\\b'}${method ?? owner}\\s*(<[^>]*>)?\\(`);
      const callers = src.filter((f) =>
        called.test(f.text.replace(new RegExp(`function\\s+${owner}\\b`, 'g'), '')),
      );
      expect(
        callers.map((f) => f.path),
        `invariant ${row.n}: nothing in src/ calls ${fn}`,
      ).not.toEqual([]);
    },
  );
});
