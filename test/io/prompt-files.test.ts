import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FileWriteError } from '../../src/io/errors.js';
import { PromptFiles, promptPath, promptsDir } from '../../src/io/prompt-files.js';
import { cleanupDirs, tempDir } from '../reviewers/call-request.js';

afterAll(cleanupDirs);

const digestOf = (s: string) => createHash('sha256').update(s).digest('hex');

describe('PromptFiles: prompts kept by digest, for audit', () => {
  it('saves each prompt as <digest>.txt under the state directory, making the directory', async () => {
    const state = join(tempDir(), 'not', 'yet');
    const files = new PromptFiles(state);
    await files.save(digestOf('one'), 'one');
    await files.save(digestOf('two'), Buffer.from('two'));
    expect(readFileSync(promptPath(state, digestOf('one')), 'utf8')).toBe('one');
    expect(readFileSync(promptPath(state, digestOf('two')), 'utf8')).toBe('two');
    expect(readdirSync(promptsDir(state)).sort()).toEqual(
      [`${digestOf('one')}.txt`, `${digestOf('two')}.txt`].sort(),
    );
  });

  it('leaves a prompt already stored as it is (content-addressed: no second write), its mtime now its last use', async () => {
    const state = tempDir();
    mkdirSync(promptsDir(state));
    const path = promptPath(state, digestOf('kept'));
    writeFileSync(path, 'kept');
    const old = new Date(Date.now() - 40 * 86_400_000);
    utimesSync(path, old, old);
    const before = statSync(path);
    await new PromptFiles(state).save(digestOf('kept'), 'kept');
    const after = statSync(path);
    expect(after.ino).toBe(before.ino);
    expect(readFileSync(path, 'utf8')).toBe('kept');
    // gc's retention ages a prompt from the last run that used it (prompt-retention.ts).
    expect(after.mtimeMs).toBeGreaterThan(before.mtimeMs + 39 * 86_400_000);
  });

  it('lands a hundred saves started together, each whole, with no temp file left', async () => {
    const state = tempDir();
    const files = new PromptFiles(state);
    const texts = Array.from({ length: 100 }, (_, i) => `prompt ${i}\n${'x'.repeat(i * 97)}`);
    await Promise.all(texts.map((t) => files.save(digestOf(t), t)));
    for (const t of texts) expect(readFileSync(promptPath(state, digestOf(t)), 'utf8')).toBe(t);
    expect(readdirSync(promptsDir(state))).toHaveLength(100);
  });

  it('a save that cannot write names the path, and a later save of it tries again', async () => {
    const state = tempDir();
    writeFileSync(join(state, 'prompts'), 'a file where the directory goes');
    const files = new PromptFiles(state);
    const err = await files.save(digestOf('p'), 'p').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FileWriteError);
    expect((err as Error).message).toContain(join(state, 'prompts'));
    let writes = 0;
    const injected = new PromptFiles(tempDir(), {
      writeFile: async () => {
        writes++;
        if (writes === 1) throw new Error('disk full');
      },
    });
    await expect(injected.save(digestOf('q'), 'q')).rejects.toThrow('disk full');
    await injected.save(digestOf('q'), 'q');
    expect(writes).toBe(2);
  });

  it('resolves a save only after a directory fsync that began after its rename (invariant 5)', async () => {
    const state = tempDir();
    const fsyncs: { release: () => void; sawFiles: string[] }[] = [];
    const files = new PromptFiles(state, {
      fsyncDir: (dir) =>
        new Promise<void>((release) =>
          fsyncs.push({ release, sawFiles: readdirSync(dir).filter((n) => n.endsWith('.txt')) }),
        ),
    });
    let firstDone = false;
    let secondDone = false;
    const first = files.save(digestOf('first'), 'first').then(() => {
      firstDone = true;
    });
    await until(() => fsyncs.length === 1);
    // The first rename's fsync is under way; the second rename lands while it is held.
    const second = files.save(digestOf('second'), 'second').then(() => {
      secondDone = true;
    });
    await until(() => readdirSync(promptsDir(state)).includes(`${digestOf('second')}.txt`));
    expect(fsyncs[0]?.sawFiles).toEqual([`${digestOf('first')}.txt`]);
    fsyncs[0]?.release();
    await first;
    // The fsync that began before the second rename does not count for it.
    await until(() => fsyncs.length === 2);
    expect(secondDone).toBe(false);
    expect(fsyncs[1]?.sawFiles.sort()).toEqual(
      [`${digestOf('first')}.txt`, `${digestOf('second')}.txt`].sort(),
    );
    fsyncs[1]?.release();
    await second;
    expect([firstDone, secondDone]).toEqual([true, true]);
  });
});

/**
 * Waits until `cond` holds. What it waits for is real file I/O in the thread
 * pool, whose speed is the machine's: a bound by turns of the event loop
 * (10,000 of them) ran out on a busy 2-core box before a rename landed. The
 * bound is a minute of wall time, there only so that a hang fails instead of
 * blocking the suite; the verdict does not rest on it.
 */
async function until(cond: () => boolean): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!cond() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 1));
  expect(cond()).toBe(true);
}
