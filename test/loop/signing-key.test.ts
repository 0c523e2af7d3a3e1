import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadSigner } from '../../src/record/keys.js';
import { ensureBuilt } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'revloop-keyrace-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const script = `
const { signingKeyPath } = await import(${JSON.stringify(new URL('../../dist/loop/outputs/write-record.js', import.meta.url).href)});
const { loadSigner } = await import(${JSON.stringify(new URL('../../dist/record/keys.js', import.meta.url).href)});
process.stdout.write(loadSigner(signingKeyPath(process.argv[1])).keyId);
`;

function run(): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', script, dir], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`exit ${code}`))));
  });
}

describe('the signing key created on first use', () => {
  it('is one key when several processes create it at once, and no temp files are left', async () => {
    ensureBuilt();
    const ids = await Promise.all(Array.from({ length: 6 }, run));
    expect(new Set(ids).size).toBe(1);
    expect(loadSigner(join(dir, '.revloop/keys/signing.key')).keyId).toBe(ids[0]);
    expect(readdirSync(join(dir, '.revloop/keys')).sort()).toEqual(['signing.key', 'signing.pub']);
  }, 600_000);
});
