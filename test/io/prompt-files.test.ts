import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
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

  it('leaves a prompt stored before it started as it is (content-addressed: no second write)', async () => {
    const state = tempDir();
    mkdirSync(promptsDir(state));
    const path = promptPath(state, digestOf('kept'));
    writeFileSync(path, 'kept');
    const before = statSync(path);
    await new PromptFiles(state).save(digestOf('kept'), 'kept');
    const after = statSync(path);
    expect([after.ino, after.mtimeMs]).toEqual([before.ino, before.mtimeMs]);
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
    const injected = new PromptFiles(tempDir(), async () => {
      writes++;
      if (writes === 1) throw new Error('disk full');
    });
    await expect(injected.save(digestOf('q'), 'q')).rejects.toThrow('disk full');
    await injected.save(digestOf('q'), 'q');
    expect(writes).toBe(2);
  });
});
