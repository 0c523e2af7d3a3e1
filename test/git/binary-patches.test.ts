/**
 * Prompts carry a binary file as the one line git writes for it without
 * `--binary` (binary-patches.ts), checked against git itself on a real
 * repository: new, changed (a delta), deleted, a quoted path, a mode change,
 * between text files and beside a text file whose lines read like the marker.
 * The digest stays that of the canonical bytes.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { withoutBinaryPatches } from '../../src/git/binary-patches.js';
import { canonicalDiffArgs } from '../../src/git/canonical-diff.js';
import { createGit } from '../../src/git/index.js';
import { binaryBytes } from '../helpers/binary-bytes.js';
import { makeRepo, TEST_GIT_ENV, type TestRepo } from '../helpers/git-repo.js';

let repo: TestRepo;
let base: string;
let head: string;

beforeAll(async () => {
  repo = await makeRepo();
  repo.write('a.txt', 'one\n');
  repo.write('assets/changed.bin', binaryBytes(20_000, 1));
  repo.write('assets/gone.bin', binaryBytes(3_000, 2));
  repo.write('assets/mode.bin', binaryBytes(500, 3));
  repo.write('z.txt', 'last\n');
  base = repo.commit('base');
  repo.write('a.txt', 'one\nGIT binary patch\n');
  repo.write('assets/changed.bin', Buffer.concat([binaryBytes(20_000, 1), binaryBytes(2_000, 4)]));
  repo.git(['rm', '-q', 'assets/gone.bin']);
  repo.write('assets/logo.png', binaryBytes(300_000, 5));
  repo.write('assets/é x.bin', binaryBytes(4_000, 6));
  repo.write('assets/mode.bin', binaryBytes(600, 7));
  repo.git(['update-index', '--add', '--chmod=+x', 'assets/mode.bin']);
  repo.write('z.txt', 'last\nGIT binary patch\nliteral 12\n');
  head = repo.commit('head');
});
afterAll(() => repo.cleanup());

/** git's own output, from the repository's git dir as the adapter runs it, with or without `--binary`. */
function gitDiff(binary: boolean): Buffer {
  const args = canonicalDiffArgs(base, head).filter((a) => binary || a !== '--binary');
  return execFileSync('git', args, { cwd: `${repo.dir}/.git`, env: TEST_GIT_ENV, maxBuffer: 1 << 28 });
}

it("is git's own diff without --binary, byte for byte, while the digest stays the canonical one", async () => {
  const canonical = gitDiff(true);
  expect(canonical.toString('utf8').match(/\nGIT binary patch\n/g)?.length).toBe(5);
  const want = gitDiff(false).toString('utf8');
  expect(withoutBinaryPatches(canonical.toString('utf8'))).toBe(want);
  const read = await createGit().diffRead(repo.dir, base, head, Number.POSITIVE_INFINITY);
  expect(read.text).toBe(want);
  expect(read.digest).toBe(createHash('sha256').update(canonical).digest('hex'));
  // Each binary file is still named, with its blob ids; the text files' lines like the marker stay.
  for (const line of [
    'Binary files /dev/null and b/assets/logo.png differ',
    'Binary files a/assets/changed.bin and b/assets/changed.bin differ',
    'Binary files a/assets/gone.bin and /dev/null differ',
    'Binary files /dev/null and "b/assets/\\303\\251 x.bin" differ',
    'Binary files a/assets/mode.bin and b/assets/mode.bin differ',
    '+GIT binary patch',
    '+literal 12',
  ])
    expect(want).toContain(`\n${line}\n`);
  // 300 KB of image was 387 KB of base85; now a line.
  expect(Buffer.byteLength(want)).toBeLessThan(2_000);
});

it('leaves a diff without binary patches as it is (the same string: same prompts, same call keys)', () => {
  const text =
    'diff --git a/x b/x\nindex 1..2 100644\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+GIT binary patch\n';
  expect(withoutBinaryPatches(text)).toBe(text);
  expect(withoutBinaryPatches('')).toBe('');
});
