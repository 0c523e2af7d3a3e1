/**
 * Config text to a validated Config: every problem is one line naming the
 * file and the key (or the line and column where the text stops parsing).
 */
import { type Config, parseConfig } from '../core/config.js';
import { isJsonConfig, readConfigDocument } from './document.js';
import { ConfigLoadError } from './errors.js';

/** Parses config text; `file` is only used to name it in errors (and `.json` picks JSON). */
export function parseConfigText(text: string, file: string): Config {
  let raw: unknown;
  try {
    raw = readConfigDocument(text, file);
  } catch (err) {
    const msg = (err as Error).message.split('\n')[0] ?? 'parse error';
    const at = errorPosition(err, text);
    throw new ConfigLoadError(
      `${file}: invalid ${isJsonConfig(file) ? 'JSON' : 'YAML'}${at ? ` at line ${at.line}, column ${at.col}` : ''}: ${msg.replace(/ at line \d+, column \d+:?$/, '')}`,
      { file, ...at },
    );
  }
  if (raw === null || raw === undefined) throw new ConfigLoadError(`${file}: the file is empty`, { file });
  const res = parseConfig(raw);
  if (!res.ok) throw new ConfigLoadError(`${file}: ${res.path}: ${res.message}`, { file, key: res.path });
  return res.config;
}

/** Line and column (1-based) of a YAML or JSON parse error, when the parser says where. */
function errorPosition(err: unknown, text: string): { line: number; col: number } | null {
  const yamlPos = (err as { linePos?: { line: number; col: number }[] }).linePos?.[0];
  if (yamlPos) return { line: yamlPos.line, col: yamlPos.col };
  const offset = /at position (\d+)/.exec((err as Error).message ?? '')?.[1];
  if (offset === undefined) return null;
  const before = text.slice(0, Number(offset)).split('\n');
  return { line: before.length, col: (before[before.length - 1]?.length ?? 0) + 1 };
}
