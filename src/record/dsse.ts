/**
 * DSSE v1 envelopes (https://github.com/secure-systems-lab/dsse): the
 * pre-authentication encoding, signing and a strict parser. Signatures cover
 * PAE(payloadType, body), never the JSON of the envelope, so the envelope's
 * formatting cannot matter.
 */
import type { Signer, Verifier } from '../ports/signer.js';

export const IN_TOTO_PAYLOAD_TYPE = 'application/vnd.in-toto+json';

export interface DsseSignature {
  keyid: string;
  sig: string;
}

export interface Envelope {
  payloadType: string;
  /** Base64 (standard alphabet when we write; URL-safe accepted when we read). */
  payload: string;
  signatures: DsseSignature[];
}

/** `DSSEv1 <len> <type> <len> <body>`, lengths in ASCII decimal of byte lengths. */
export function pae(payloadType: string, body: Uint8Array): Buffer {
  const type = Buffer.from(payloadType, 'utf8');
  return Buffer.concat([
    Buffer.from(`DSSEv1 ${type.length} `, 'utf8'),
    type,
    Buffer.from(` ${body.length} `, 'utf8'),
    body,
  ]);
}

export function signEnvelope(payloadType: string, body: Uint8Array, signers: Signer[]): Envelope {
  const message = pae(payloadType, body);
  return {
    payloadType,
    payload: Buffer.from(body).toString('base64'),
    signatures: signers.map((s) => ({
      keyid: s.keyId,
      sig: Buffer.from(s.sign(message)).toString('base64'),
    })),
  };
}

/**
 * Strict base64: standard or URL-safe alphabet, padding optional, and the
 * bytes must re-encode to the same text (Buffer.from alone skips junk).
 */
export function decodeBase64(text: string): Buffer | null {
  if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(text)) return null;
  const std = text.replace(/-/g, '+').replace(/_/g, '/').replace(/=+$/, '');
  if (std.length % 4 === 1) return null;
  const bytes = Buffer.from(std, 'base64');
  if (bytes.toString('base64').replace(/=+$/, '') !== std) return null;
  return bytes;
}

export type ParsedEnvelope =
  | { ok: true; envelope: Envelope; body: Buffer; sigs: { keyid: string; sig: Buffer }[] }
  | { ok: false; reason: string };

/** Parses envelope text; any deviation from the DSSE shape is a reason, never a throw. */
export function parseEnvelope(text: string): ParsedEnvelope {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, reason: 'record is not JSON (truncated or corrupt)' };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return { ok: false, reason: 'record is not a DSSE envelope object' };
  const e = value as Record<string, unknown>;
  if (typeof e.payloadType !== 'string') return { ok: false, reason: 'envelope has no payloadType' };
  if (typeof e.payload !== 'string') return { ok: false, reason: 'envelope has no payload' };
  if (!Array.isArray(e.signatures) || e.signatures.length === 0)
    return { ok: false, reason: 'envelope has no signatures' };
  const body = decodeBase64(e.payload);
  if (!body) return { ok: false, reason: 'payload is not base64' };
  const sigs: { keyid: string; sig: Buffer }[] = [];
  for (const s of e.signatures as unknown[]) {
    const r = (typeof s === 'object' && s !== null ? s : {}) as Record<string, unknown>;
    if (typeof r.sig !== 'string') return { ok: false, reason: 'a signature has no sig' };
    if (r.keyid !== undefined && typeof r.keyid !== 'string')
      return { ok: false, reason: 'a signature keyid is not a string' };
    const sig = decodeBase64(r.sig);
    if (!sig) return { ok: false, reason: 'a signature is not base64' };
    sigs.push({ keyid: (r.keyid as string | undefined) ?? '', sig });
  }
  const envelope: Envelope = {
    payloadType: e.payloadType,
    payload: e.payload,
    signatures: sigs.map((s) => ({ keyid: s.keyid, sig: s.sig.toString('base64') })),
  };
  return { ok: true, envelope, body, sigs };
}

export type SignatureCheck =
  | { ok: true; keyId: string }
  | { ok: false; code: 'bad_signature' | 'unknown_key'; reason: string };

/**
 * Accepts when any signature verifies under any trusted key. A keyid is only a
 * hint (DSSE), so every trusted key is tried; the failure is `bad_signature`
 * when a signature names a trusted key, else `unknown_key`.
 */
export function checkSignatures(
  payloadType: string,
  body: Uint8Array,
  sigs: { keyid: string; sig: Uint8Array }[],
  trusted: Verifier[],
): SignatureCheck {
  const message = pae(payloadType, body);
  for (const s of sigs) {
    const named = trusted.filter((v) => v.keyId === s.keyid);
    const rest = trusted.filter((v) => v.keyId !== s.keyid);
    for (const v of [...named, ...rest]) if (v.verify(message, s.sig)) return { ok: true, keyId: v.keyId };
  }
  const known = sigs.find((s) => trusted.some((v) => v.keyId === s.keyid));
  if (known)
    return {
      ok: false,
      code: 'bad_signature',
      reason: `signature by key ${short(known.keyid)} does not match the payload`,
    };
  const ids = sigs.map((s) => (s.keyid ? short(s.keyid) : '(no keyid)')).join(', ');
  return {
    ok: false,
    code: 'unknown_key',
    reason: trusted.length
      ? `signed by ${ids}, which is not among the ${trusted.length} trusted key(s)`
      : `signed by ${ids}, and no key is trusted (pass --key or list keys in the config)`,
  };
}

const short = (keyId: string): string => keyId.slice(0, 16);
