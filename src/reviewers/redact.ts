/**
 * Secrets never reach an output. A reply is text the change's author can
 * steer (prompt injection), so a reviewer may be talked into quoting the
 * job's token in a finding; and an endpoint may echo a key in an error. Two
 * passes use this module: every call's reply, note and detail are redacted
 * before anything of the call is recorded (reviewers/index.ts), and every
 * report is redacted again on its way out (loop/outputs/run-report-loader.ts), with
 * the secrets of the job that prints it.
 *
 * A secret is the value of an environment variable whose name looks like a
 * credential, the password of a URL in the environment, or any text shaped
 * like a well-known token (whoever's it is).
 */

/** Name segments (split on `_`) that mark a credential: `GITHUB_TOKEN`, `AWS_SECRET_ACCESS_KEY`, `NPM_AUTH`. */
const SECRET_SEGMENTS = new Set([
  'TOKEN',
  'KEY',
  'APIKEY',
  'SECRET',
  'PASSWORD',
  'PASSWD',
  'PASSPHRASE',
  'CREDENTIAL',
  'CREDENTIALS',
  'AUTH',
  'PAT',
  'COOKIE',
  'SESSION',
]);
/** Credential words that also count inside a segment: `PGPASSWORD`, `GHTOKEN`, `CLIENTSECRET`. */
const SECRET_WORD = /TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|APIKEY/i;
/** A name that says where a credential is, not what it is (`SSH_AUTH_SOCK`, `GOOGLE_CREDENTIALS_FILE`). */
const LOCATION_SEGMENTS = new Set(['FILE', 'PATH', 'SOCK', 'DIR']);
/** Shorter values are too likely to occur by chance in ordinary text. */
const MIN_SECRET_LENGTH = 8;
const REDACTED = '[redacted]';

/** Whether an environment variable's name says its value is a credential. */
export function isSecretName(name: string): boolean {
  const segments = name.toUpperCase().split('_');
  const last = segments[segments.length - 1] ?? '';
  if (LOCATION_SEGMENTS.has(last)) return false;
  return segments.some((s) => SECRET_SEGMENTS.has(s)) || SECRET_WORD.test(name);
}

/**
 * The secrets of an environment: values of variables whose names look like
 * credentials, passwords inside URL values (`postgres://ci:pw@db/x`), and
 * `extra` values (a key read from a configured variable of any name).
 * Longest first, so a secret that contains another is replaced whole.
 */
export function secretValues(env: NodeJS.ProcessEnv, extra: (string | undefined)[] = []): string[] {
  const out = new Set<string>();
  const add = (v: string | undefined) => {
    if (v && v.length >= MIN_SECRET_LENGTH) out.add(v);
  };
  for (const [name, value] of Object.entries(env)) {
    if (!value) continue;
    if (isSecretName(name)) add(value);
    add(urlPassword(value));
  }
  for (const v of extra) add(v);
  return [...out].sort((a, b) => b.length - a.length);
}

function urlPassword(value: string): string | undefined {
  if (!value.includes('://') || !value.includes('@')) return undefined;
  try {
    const password = new URL(value).password;
    return password ? decodeURIComponent(password) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Well-known token shapes: GitHub (`ghp_`, `gho_`, `ghu_`, `ghs_`, `ghr_`,
 * `github_pat_`), GitLab (`glpat-` and its kin), Anthropic and OpenAI
 * (`sk-ant-`, `sk-proj-`, `sk-`), Slack (`xoxb-` ...), AWS access key ids
 * and JSON web tokens. Each starts a run of token characters (the
 * lookbehind), so the engine tries a shape once per run and the pass stays
 * linear however the text is made.
 */
const TOKEN_SHAPE = new RegExp(
  `(?<![A-Za-z0-9_-])(?:${[
    'gh[pousr]_[A-Za-z0-9]{20,}',
    'github_pat_[A-Za-z0-9_]{20,}',
    'gl(?:pat|dt|rt|ptt|oas|cbt|soat|ft)-[A-Za-z0-9_-]{20,}',
    'sk-[A-Za-z0-9_-]{20,}',
    'xox[abeoprs]-[A-Za-z0-9-]{10,}',
    '(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Za-z0-9])',
    'eyJ[A-Za-z0-9_-]{8,}\\.[A-Za-z0-9_-]{8,}\\.[A-Za-z0-9_-]{8,}',
  ].join('|')})`,
  'g',
);

/** Replaces every occurrence of every secret, and every token-shaped word, with `[redacted]`. */
export function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) if (out.includes(s)) out = out.split(s).join(REDACTED);
  return out.replace(TOKEN_SHAPE, REDACTED);
}

/**
 * A value with every string in it redacted, at any depth (object keys are
 * kept: they are schema names, never what an agent wrote). The same object
 * comes back when nothing in it changed.
 */
export function redactDeep<T>(value: T, secrets: readonly string[]): T {
  return deep(value, secrets) as T;
}

function deep(value: unknown, secrets: readonly string[]): unknown {
  if (typeof value === 'string') return redact(value, secrets);
  if (Array.isArray(value)) {
    const next = value.map((v) => deep(v, secrets));
    return next.some((v, i) => v !== value[i]) ? next : value;
  }
  if (value === null || typeof value !== 'object' || Object.getPrototypeOf(value) !== Object.prototype)
    return value;
  let changed = false;
  const entries = Object.entries(value).map(([k, v]) => {
    const next = deep(v, secrets);
    if (next !== v) changed = true;
    return [k, next] as const;
  });
  return changed ? Object.fromEntries(entries) : value;
}
