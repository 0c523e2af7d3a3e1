/**
 * A WAL ledger's last commits live in its log (`ledger.db-wal`) until a
 * checkpoint copies them into the file. A log deleted or cut short after a
 * `kill -9` loses them, and SQLite, opening the file, quietly rebuilds its
 * index from what is left: the ledger then reads as older ("needs an upgrade")
 * or empty ("no runs yet"). The shared-memory index (`ledger.db-shm`) still
 * says how many frames the log held, so the loss is seen before SQLite opens
 * the file and erases that evidence.
 */
import { closeSync, existsSync, openSync, readSync, statSync } from 'node:fs';

/** The WAL file header and each frame's header, in bytes (sqlite.org/fileformat2.html, "WAL File Format"). */
const WAL_HEADER = 32;
const FRAME_HEADER = 24;

/** How long a loss must persist: a process closing the ledger deletes the log, then the index, just after. */
const SETTLE_MS = 100;

/** What the index says the log must hold, and what it holds: null when nothing is missing. */
export function lostLog(path: string): { expected: number; actual: number } | null {
  const first = readLoss(path);
  if (!first) return null;
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, SETTLE_MS);
  return readLoss(path);
}

function readLoss(path: string): { expected: number; actual: number } | null {
  const shm = `${path}-shm`;
  if (!existsSync(shm) || statSync(shm).size < 96) return null;
  const copies = Buffer.alloc(96);
  const fd = openSync(shm, 'r');
  try {
    readSync(fd, copies, 0, 96, 0);
  } finally {
    closeSync(fd);
  }
  // SQLite writes the header twice and a reader trusts it only when both copies agree (one
  // being written right now does not).
  const header = copies.subarray(0, 48);
  if (!header.equals(copies.subarray(48, 96))) return null;
  // The wal-index header (sqlite.org/walformat.html): isInit at 12, szPage at 14, mxFrame at 16,
  // in the machine's byte order; a page size of 65536 is stored as 1.
  if (header[12] !== 1) return null;
  const le = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
  const raw = le ? header.readUInt16LE(14) : header.readUInt16BE(14);
  const pageSize = raw === 1 ? 65_536 : raw;
  const frames = le ? header.readUInt32LE(16) : header.readUInt32BE(16);
  if (frames === 0 || pageSize === 0) return null;
  const expected = WAL_HEADER + frames * (FRAME_HEADER + pageSize);
  const wal = `${path}-wal`;
  const actual = existsSync(wal) ? statSync(wal).size : 0;
  return actual < expected ? { expected, actual } : null;
}
