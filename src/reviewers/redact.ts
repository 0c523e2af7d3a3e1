/**
 * Secrets never reach a call's detail (which is stored in the ledger and
 * printed): any configured key value that an endpoint or agent echoes back
 * is replaced before the detail leaves the adapter.
 */

const SECRET_NAME = /(API_KEY|APIKEY|_TOKEN|_SECRET|PASSWORD)$/i;
/** Shorter values are too likely to occur by chance in ordinary text. */
const MIN_SECRET_LENGTH = 8;

/** Values of environment variables whose names look like credentials. */
export function secretValues(env: NodeJS.ProcessEnv, extra: (string | undefined)[] = []): string[] {
  const out = new Set<string>();
  for (const [name, value] of Object.entries(env)) {
    if (value && value.length >= MIN_SECRET_LENGTH && SECRET_NAME.test(name)) out.add(value);
  }
  for (const v of extra) if (v && v.length >= MIN_SECRET_LENGTH) out.add(v);
  // Longest first, so a secret that contains another is replaced whole.
  return [...out].sort((a, b) => b.length - a.length);
}

/** Replaces every occurrence of every secret with `[redacted]`. */
export function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) if (out.includes(s)) out = out.split(s).join('[redacted]');
  return out;
}
