/**
 * What a fix commit may not carry, whoever made it (the fixer's edit or its
 * own commits): a submodule added, moved or removed (another repository's
 * history, which no reviewer reads), and a symbolic link pointing out of the
 * repository (a check or the next reviewer following it would read whatever
 * it names on the machine).
 */
/** One entry a fix changed (Git.treeChanges' fields the rule reads). */
export interface FixEntry {
  path: string;
  oldMode: string;
  newMode: string;
}

const GITLINK = '160000';
const SYMLINK = '120000';

/** Whether a link at `path` with `target` resolves outside the repository root. */
export function linkLeavesRepo(path: string, target: string): boolean {
  if (target.startsWith('/') || target === '') return true;
  const parts = path.split('/').slice(0, -1);
  for (const seg of target.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') {
      if (parts.length === 0) return true;
      parts.pop();
    } else parts.push(seg);
  }
  return false;
}

/**
 * Why the fix cannot land, naming the first entry at fault, or null.
 * `linkTargets`: the target of each link the fix adds or changes, by path.
 */
export function refusedFixEntry(
  changes: readonly FixEntry[],
  linkTargets: ReadonlyMap<string, string>,
): string | null {
  for (const c of changes) {
    if (c.oldMode === GITLINK || c.newMode === GITLINK) {
      const what = c.oldMode !== GITLINK ? 'adds' : c.newMode !== GITLINK ? 'removes' : 'moves';
      return `the fix ${what} submodule ${c.path}; a fix cannot change which commit of another repository is used`;
    }
    if (c.newMode === SYMLINK) {
      const target = linkTargets.get(c.path) ?? '';
      if (linkLeavesRepo(c.path, target))
        return `the fix makes ${c.path} a symbolic link out of the repository (${JSON.stringify(target)})`;
    }
  }
  return null;
}
