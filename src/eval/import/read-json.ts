/** A downloaded benchmark file read as JSON; its absence or bad syntax is a CorpusError naming it (exit 2). */
import { existsSync, readFileSync } from 'node:fs';
import { CorpusError } from '../errors.js';

export function readJsonFile(file: string, what?: string): unknown {
  if (!existsSync(file)) throw new CorpusError(file, what ? `no such file (${what})` : 'no such file');
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new CorpusError(file, `not JSON: ${(err as Error).message.split('\n')[0]}`);
  }
}
