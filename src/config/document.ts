/**
 * The one place revloop's config text is parsed as YAML or JSON (by the
 * file's name), and the only module of revloop that imports the yaml
 * package: `verify` reaches it only when its fast path (fast-keys.ts)
 * cannot answer, because the package alone costs more start-up than node.
 */
import { parse as parseYaml } from 'yaml';

/** Whether `file` is read as JSON rather than YAML. */
export const isJsonConfig = (file: string): boolean => file.endsWith('.json');

/**
 * The document in config text, not validated. Throws the parser's own error
 * (`parseConfigText` turns it into one line naming the file and position).
 */
export function readConfigDocument(text: string, file: string): unknown {
  return isJsonConfig(file) ? JSON.parse(text) : parseYaml(text);
}

/** The document as a mapping, or null when it is none or does not parse (for reads that only compare). */
export function readConfigMapping(text: string, file: string): Record<string, unknown> | null {
  try {
    const raw = readConfigDocument(text, file);
    return raw && typeof raw === 'object' ? (raw as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
