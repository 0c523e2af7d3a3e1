/**
 * `n` bytes git takes for a binary file (a NUL first, as git's own test looks
 * for one in the first 8000 bytes), pseudo-random from `seed` so that a test
 * writes the same file every run and zlib cannot shrink it much.
 */
export function binaryBytes(n: number, seed: number): Buffer {
  const b = Buffer.alloc(n);
  let x = seed >>> 0;
  for (let i = 0; i < n; i++) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    b[i] = x >>> 24;
  }
  b[0] = 0;
  return b;
}
