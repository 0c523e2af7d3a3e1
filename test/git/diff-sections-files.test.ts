/**
 * What a canonical diff's sections say of their files (diff-sections.ts), read
 * from a real repository's real diff: the blob id at the revision (so context
 * reads skip the tree walk) and whether the section carries the file
 * whole (so its content is not sent twice). A wrong blob id would put another
 * file's content in a prompt; a wrong "whole" would leave a file out.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { diffSections } from '../../src/git/diff-sections.js';
import { createGit } from '../../src/git/index.js';
import { makeRepo, type TestRepo } from '../helpers/git-repo.js';

let repo: TestRepo;
let base: string;
let head: string;

beforeAll(async () => {
  repo = await makeRepo();
  repo.write('kept.ts', 'export const a = 1;\n');
  repo.write('gone.ts', 'export const gone = 1;\n');
  repo.write('mode.sh', 'echo hi\n');
  base = repo.commit('base');
  repo.write('kept.ts', 'export const a = 2;\n');
  repo.git(['rm', '-q', 'gone.ts']);
  repo.write('new.ts', 'export const fresh = 1;\nexport const more = 2;\n');
  repo.write('new file with space.ts', 'x\n');
  repo.write('empty.txt', '');
  repo.write('logo.png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 3]));
  chmodSync(join(repo.dir, 'mode.sh'), 0o755);
  head = repo.commit('change');
});
afterAll(() => repo.cleanup());

const blobAt = (rev: string, path: string) =>
  execFileSync('git', ['rev-parse', `${rev}:${path}`], { cwd: repo.dir, encoding: 'utf8' }).trim();

it('each section names its blob at the revision and says whether it carries the file whole', async () => {
  const git = createGit();
  const diff = await git.diffText(repo.dir, base, head, 1 << 20);
  const got = Object.fromEntries(
    diffSections(diff, 1 << 20).map((s) => [s.path, { blob: s.blob, whole: s.whole === true }]),
  );
  expect(got).toEqual({
    'empty.txt': { blob: blobAt(head, 'empty.txt'), whole: false },
    'gone.ts': { blob: undefined, whole: false },
    // A one-line file changed: its hunk shows every line of it (whole-sections.test.ts).
    'kept.ts': { blob: blobAt(head, 'kept.ts'), whole: true },
    'logo.png': { blob: blobAt(head, 'logo.png'), whole: false },
    // A mode change alone has no index line: no id, read by path.
    'mode.sh': { blob: undefined, whole: false },
    'new file with space.ts': { blob: blobAt(head, 'new file with space.ts'), whole: true },
    'new.ts': { blob: blobAt(head, 'new.ts'), whole: true },
  });
});

it('an "index" line inside a hunk is content, not the header', () => {
  const fake = 'f'.repeat(40);
  const diff = [
    'diff --git a/notes.md b/notes.md',
    'new file mode 100644',
    '--- /dev/null',
    '+++ b/notes.md',
    '@@ -0,0 +1,2 @@',
    `+index 0000000..${fake}`,
    '+text',
    '',
  ].join('\n');
  const [s] = diffSections(diff, 1 << 20);
  expect(s?.blob).toBeUndefined();
  expect(s?.whole).toBe(true);
});
