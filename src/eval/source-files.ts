/**
 * Which files of a commit count as source for `eval mine`: a fix that only
 * touched tests, docs or data is no known bug a reviewer should find. By
 * default a file is source when its extension is a programming language's
 * and its path is not a test, fixture, example or doc; `--source` globs
 * replace that rule for a repository the table does not fit.
 */
import picomatch from 'picomatch';

/** Extensions of the languages mined by default, said in messages as they are written here. */
// biome-ignore format: one table, read as a list
export const SOURCE_EXTENSIONS = [
  'js', 'mjs', 'cjs', 'jsx', 'ts', 'mts', 'cts', 'tsx',
  'py', 'pyi', 'rs', 'go', 'java', 'kt', 'kts', 'scala', 'groovy',
  'c', 'h', 'cc', 'cpp', 'cxx', 'hpp', 'hh', 'hxx', 'm', 'mm', 'cs', 'fs', 'swift',
  'rb', 'php', 'pl', 'pm', 'lua', 'ex', 'exs', 'erl', 'hs', 'ml', 'mli', 'clj', 'dart',
  'sh', 'bash', 'zig', 'nim', 'jl', 'r', 'sql', 'vue', 'svelte',
] as const;

const EXTENSION = new RegExp(`\\.(${SOURCE_EXTENSIONS.join('|')})$`, 'i');

/** Tests, benchmarks, fixtures, examples and docs, by directory or by the naming conventions of the languages above. */
const NOT_SOURCE = new RegExp(
  [
    '(^|/)(tests?|__tests__|testing|spec|specs|benchmarks?|bench|fixtures?|testdata|examples?|docs?)/',
    '\\.(test|spec)\\.',
    '[.-]d\\.ts$',
    '(^|/)(test|bench|benchmark)\\.m?js$',
    '(^|/)test_[^/]*\\.py$',
    '_test\\.(py|go|rb|exs)$',
    '(^|/)conftest\\.py$',
    '_spec\\.rb$',
    '(Test|Tests|Spec)\\.(java|kt|scala|cs|swift)$',
  ].join('|'),
);

export type SourceRule = (path: string) => boolean;

/** The rule for a mine: the `--source` globs when given, else the language table. */
export function sourceRule(globs: readonly string[] = []): SourceRule {
  if (globs.length === 0) return (p) => EXTENSION.test(p) && !NOT_SOURCE.test(p);
  const match = picomatch([...globs], { dot: true });
  return (p) => match(p);
}

/** What counted as source, for the line that says nothing qualified. */
export function describeSourceRule(globs: readonly string[] = []): string {
  return globs.length > 0
    ? `files matching --source ${globs.join(', ')}`
    : `files with a source extension (${SOURCE_EXTENSIONS.map((e) => `.${e}`).join(' ')}) outside tests, fixtures, examples and docs`;
}
