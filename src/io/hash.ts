import { createHash } from 'node:crypto';

/** sha256 of text or bytes, lower-case hex. */
export const sha256 = (data: string | Uint8Array): string => createHash('sha256').update(data).digest('hex');
