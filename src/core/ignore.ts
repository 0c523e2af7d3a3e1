/**
 * `ignore:` globs: paths the review leaves out of prompts,
 * scope checks and coverage, each kept with the rule that matched so the
 * record can say why a file was not reviewed. Rules come from the config and,
 * when the config asks, from `.gitattributes` at the base (`linguist-generated`,
 * `linguist-vendored`); both are read from the frozen commit and frozen in the
 * snapshot, so the head of a change cannot widen its own ignore list.
 */
import picomatch from 'picomatch';

/** A `.gitattributes` line that sets or unsets a linguist attribute, as read at the base. */
export interface AttributeRule {
  pattern: string;
  attr: 'linguist-generated' | 'linguist-vendored';
  set: boolean;
}

export interface IgnoreRules {
  globs: string[];
  attributes: AttributeRule[];
}

export const NO_IGNORE: IgnoreRules = { globs: [], attributes: [] };

export class BadGlobError extends Error {
  constructor(
    readonly key: string,
    readonly glob: string,
    why: string,
  ) {
    super(`${key}: glob "${glob}" does not parse: ${why}`);
  }
}

const MATCH_OPTIONS = { dot: true, strictBrackets: true } as const;

function compile(key: string, glob: string): (path: string) => boolean {
  if (glob.trim() === '') throw new BadGlobError(key, glob, 'it is empty');
  if (glob.startsWith('/')) throw new BadGlobError(key, glob, 'paths are relative to the repository root');
  try {
    return picomatch(glob, MATCH_OPTIONS);
  } catch (err) {
    throw new BadGlobError(key, glob, (err as Error).message.split('\n')[0] ?? 'invalid');
  }
}

/** Why `glob` does not parse, or null when it does (the config's check, one line). */
export function globProblem(glob: string): string | null {
  try {
    compile('ignore', glob);
    return null;
  } catch (err) {
    if (err instanceof BadGlobError) return err.message.replace(/^ignore: /, '');
    throw err;
  }
}

/**
 * A gitattributes pattern as a glob: one without a slash matches the name at
 * any depth, one with a slash is anchored at the root; `dir/` names what is under it.
 */
function attributeGlob(pattern: string): string {
  let p = pattern.replace(/^\//, '');
  if (p.endsWith('/')) p = `${p}**`;
  return pattern.replace(/\/$/, '').includes('/') ? p : `**/${p}`;
}

/** The linguist lines of a `.gitattributes` text (comments, macros and other attributes skipped). */
export function parseLinguistAttributes(text: string): AttributeRule[] {
  const out: AttributeRule[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith('[attr]')) continue;
    const [pattern, ...attrs] = line.split(/\s+/);
    if (!pattern) continue;
    for (const a of attrs) {
      const m = /^(-|!)?(linguist-generated|linguist-vendored)(?:=(true|false))?$/.exec(a);
      if (!m) continue;
      const set = m[1] === undefined && m[3] !== 'false';
      out.push({ pattern, attr: m[2] as AttributeRule['attr'], set });
    }
  }
  return out;
}

/** A `.gitattributes` pattern picomatch cannot read matches nothing, as git would leave it. */
function attributeTest(pattern: string): (path: string) => boolean {
  try {
    return picomatch(attributeGlob(pattern), { dot: true });
  } catch {
    return () => false;
  }
}

export type IgnoreMatcher = (path: string) => string | null;

/**
 * The matcher of a rule set: for a path, the rule that leaves it out
 * (`ignore: "dist/**"`, `.gitattributes: "*.pb.go linguist-generated"`), or
 * null. Config globs are checked first; for attributes the last line that
 * names the path decides, as git reads them.
 */
export function ignoreMatcher(rules: IgnoreRules): IgnoreMatcher {
  const globs = rules.globs.map((g, i) => ({ rule: `ignore: "${g}"`, test: compile(`ignore.${i}`, g) }));
  const attrs = rules.attributes.map((a) => ({
    ...a,
    rule: `.gitattributes: "${a.pattern} ${a.attr}"`,
    test: attributeTest(a.pattern),
  }));
  // Asked of every file of every diff (2,000 on a large change): no rules, no work.
  if (globs.length === 0 && attrs.length === 0) return () => null;
  return (path) => {
    for (const g of globs) if (g.test(path)) return g.rule;
    if (attrs.length === 0) return null;
    const last = new Map<string, { set: boolean; rule: string }>();
    for (const a of attrs) if (a.test(path)) last.set(a.attr, a);
    for (const a of last.values()) if (a.set) return a.rule;
    return null;
  };
}

/**
 * The rules as they apply to one revision of a run: they leave out parts of
 * the change as admitted, never what the run's own fixes wrote, so a path the
 * fixer edited (`editedByFix`) is kept however the rules match it.
 */
export function revisionMatcher(rules: IgnoreRules, editedByFix: readonly string[] = []): IgnoreMatcher {
  const matcher = ignoreMatcher(rules);
  if (editedByFix.length === 0) return matcher;
  const kept = new Set(editedByFix);
  return (path) => (kept.has(path) ? null : matcher(path));
}

/**
 * Whether a path is left out, for a read that drops what no prompt carries
 * (Git.diffRead's `leavesOut`); undefined when the rules leave nothing out.
 */
export function leavesOut(rules: IgnoreRules): ((path: string) => boolean) | undefined {
  if (rules.globs.length === 0 && rules.attributes.length === 0) return undefined;
  const matcher = ignoreMatcher(rules);
  return (path) => matcher(path) !== null;
}

/** The config line a user could add to leave `path` out (a file too large for any call). */
export const ignoreLineFor = (path: string): string => `ignore: ["${path.replace(/["\\]/g, '\\$&')}"]`;
