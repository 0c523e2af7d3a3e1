/**
 * The formats `revloop export` writes, listed once: the CLI's `--format`
 * choices and the export command's exhaustive switch both read this. No
 * imports, so the CLI can load it before any command.
 */
export const EXPORT_FORMATS = [
  'rounds',
  'sarif',
  'markdown',
  'junit',
  'github',
  'escalation',
  'rdjson',
] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];
