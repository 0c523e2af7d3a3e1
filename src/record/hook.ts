/**
 * The pre-push hook: a POSIX sh script that, for the pushed HEAD, looks for a
 * record in .revloop/records/ that `revloop verify` accepts, and refuses the
 * push otherwise. The hook runs git itself (git runs it); revloop only writes it.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { RevloopError } from '../core/errors.js';
import { hooksDir } from '../git/dot-git.js';
import { writeFileAtomic } from '../io/atomic-file.js';

/** Marks a hook as ours: only a hook carrying it is replaced without --force. */
export const HOOK_MARKER = '# revloop pre-push hook';

export class HookExistsError extends RevloopError {
  constructor(readonly path: string) {
    super('hook_exists', `${path} exists and was not written by revloop (use --force to replace it)`, {
      path,
    });
  }
}

const shQuote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * The hook's text. `node` and `main` locate this revloop install; when `main`
 * is gone (package moved), the hook falls back to `revloop` on PATH.
 */
export function prePushHook(node: string, main: string): string {
  return `#!/bin/sh
${HOOK_MARKER} (written by \`revloop hook install\`; rerun it to update).
# Refuses a push unless a signed record in .revloop/records/ verifies for the
# pushed commit, with verify's own choice of keys and target branch (origin/HEAD,
# else main, else master). Bypass once with \`git push --no-verify\`.
REVLOOP_NODE=${shQuote(node)}
REVLOOP_MAIN=${shQuote(main)}
revloop() {
  if [ -f "$REVLOOP_MAIN" ]; then "$REVLOOP_NODE" "$REVLOOP_MAIN" "$@"; else command revloop "$@"; fi
}
root=$(git rev-parse --show-toplevel) || exit 1
cd "$root" || exit 1
# Records are read from this machine's state directory, never through a link a change could commit.
if [ -L .revloop ] || [ -L .revloop/records ]; then
  echo "revloop: refusing to push: .revloop or .revloop/records is a symlink: records are never read through a link" >&2
  exit 1
fi
head=$(git rev-parse HEAD) || exit 1
status=0
while read -r local_ref local_sha remote_ref remote_sha; do
  case "$local_sha" in *[!0]*) ;; *) continue ;; esac
  short=$(printf '%.7s' "$local_sha")
  if [ "$local_sha" != "$head" ]; then
    echo "revloop: refusing to push $local_ref ($short): only the checked-out HEAD can be verified; check it out and push again" >&2
    status=1
    continue
  fi
  found=
  reasons=
  for f in $(ls -t .revloop/records/ 2>/dev/null); do
    case "$f" in *.json) ;; *) continue ;; esac
    if out=$(revloop verify ".revloop/records/$f" --repo . 2>&1 </dev/null); then
      found=$f
      break
    fi
    case "$out" in
      *subject_mismatch*) ;;
      *) reasons="$reasons
  .revloop/records/$f: $out" ;;
    esac
  done
  if [ -z "$found" ]; then
    echo "revloop: refusing to push $local_ref ($short): no record in .revloop/records/ verifies for this commit.$reasons" >&2
    echo "revloop: run \\\`revloop review\\\` on this commit (it writes a signed record), then push again." >&2
    status=1
  fi
done
exit $status
`;
}

/** Writes the hook (mode 0755). Replaces a foreign hook only with `force`. */
export function installPrePushHook(opts: {
  root: string;
  node: string;
  main: string;
  force?: boolean | undefined;
}): { path: string; replaced: 'none' | 'ours' | 'foreign' } {
  const path = join(hooksDir(opts.root), 'pre-push');
  let replaced: 'none' | 'ours' | 'foreign' = 'none';
  if (existsSync(path)) {
    replaced = readFileSync(path, 'utf8').includes(HOOK_MARKER) ? 'ours' : 'foreign';
    if (replaced === 'foreign' && !opts.force) throw new HookExistsError(path);
  }
  writeFileAtomic(path, prePushHook(opts.node, opts.main), { mode: 0o755 });
  return { path, replaced };
}
