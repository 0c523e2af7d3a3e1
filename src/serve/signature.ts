/**
 * Webhook authentication on the raw body, before anything is parsed or
 * stored. GitHub signs the body with HMAC-SHA256 (`X-Hub-Signature-256:
 * sha256=<hex>`); GitLab sends the secret itself (`X-Gitlab-Token`). Both are
 * compared in constant time against every configured secret (two during a
 * rotation), with no early exit that would tell which one came close.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { UsageError } from '../core/errors.js';

const SIGNATURE = /^sha256=([0-9a-f]{64})$/i;

export function githubSignatureValid(
  body: Uint8Array,
  header: string | undefined,
  secrets: readonly string[],
): boolean {
  const m = SIGNATURE.exec(header ?? '');
  const given = Buffer.from(m?.[1] ?? '0'.repeat(64), 'hex');
  let ok = false;
  for (const s of secrets) {
    const want = createHmac('sha256', s).update(body).digest();
    // Every secret is compared, whatever the earlier ones said.
    ok = timingSafeEqual(want, given) || ok;
  }
  return ok && m !== null;
}

export function gitlabTokenValid(header: string | undefined, secrets: readonly string[]): boolean {
  // Digests of equal length, so the comparison takes the same time whatever the token's length.
  const given = createHash('sha256')
    .update(header ?? '')
    .digest();
  let ok = false;
  for (const s of secrets) ok = timingSafeEqual(createHash('sha256').update(s).digest(), given) || ok;
  return ok && header !== undefined && header !== '';
}

export const SECRET_ENV = 'REVLOOP_WEBHOOK_SECRET';
export const PREVIOUS_SECRET_ENV = 'REVLOOP_WEBHOOK_SECRET_PREVIOUS';

/**
 * The secrets, current first: from a file (its first line the current secret,
 * an optional second line the previous one), else from the environment. Read
 * again on every call from a file, so a rotation needs no restart. Never from
 * argv (a process list shows it); never printed.
 */
export function secretSource(env: NodeJS.ProcessEnv, file: string | undefined): () => readonly string[] {
  if (file) {
    const read = () => {
      let text: string;
      try {
        text = readFileSync(file, 'utf8');
      } catch (err) {
        throw new UsageError(`--secret-file ${file}: ${(err as NodeJS.ErrnoException).code ?? 'unreadable'}`);
      }
      const lines = text
        .split('\n')
        .map((l) => l.trim())
        .filter((l) => l !== '');
      if (lines.length === 0 || lines.length > 2)
        throw new UsageError(
          `--secret-file ${file}: expected the current secret on its first line and at most a previous one on the second`,
        );
      return lines;
    };
    let last = read();
    return () => {
      try {
        last = read();
      } catch {
        // A file caught mid-rewrite keeps the secrets read last.
      }
      return last;
    };
  }
  const current = env[SECRET_ENV]?.trim();
  if (!current)
    throw new UsageError(
      `no webhook secret: set ${SECRET_ENV} (and ${PREVIOUS_SECRET_ENV} while rotating) or pass --secret-file PATH`,
    );
  const previous = env[PREVIOUS_SECRET_ENV]?.trim();
  const list = previous ? [current, previous] : [current];
  return () => list;
}
