/**
 * Reads files at commits through one long-lived `git cat-file --batch` per
 * repository instead of a git process per file. An API reviewer's context
 * reads every changed file of its chunk: on a 2,000-file change that was
 * 2,000 processes, each forked from a controller holding a 20 MB diff (a few
 * milliseconds of page-table copying apiece, most of the controller's time on the bench's 2,000-file change).
 *
 * The process is started on the first read and ends its input after a short
 * idle spell, so nothing outlives the burst of reads that needed it; while
 * idle its handles are unref'd, so it never keeps the controller alive.
 * Anything but a plain blob answer (missing, a tree, a submodule, a path git
 * cannot take on one line, a dead process) is answered `undefined`, and the
 * caller asks the one-process-per-file way, which explains failures.
 * A second such process (`--batch-check`) gives sizes without the bytes: the
 * context reader sizes a chunk's files to read only those that fit.
 */
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import type { GitRunner } from './run.js';

/** Long enough to span a stage's reads (they come in bursts), short enough to hold no process between stages. */
const IDLE_MS = 250;

interface Pending {
  resolve: (a: Answer | undefined) => void;
}

/**
 * `read(repo, object)` (`<commit>:<path>` or a blob id): the blob's bytes, or
 * undefined when the answer is anything else (ask git one by one).
 */
export type BatchRead = (repo: string, object: string) => Promise<Buffer | undefined>;

export function blobBatchReader(run: GitRunner): BatchRead {
  const ask = batchAsker(run, 'contents');
  return async (repo, object) => {
    const a = await ask(repo, object);
    return a?.type === 'blob' ? a.content : undefined;
  };
}

/**
 * `size(repo, object)`: the object's size when it is a blob, null when git
 * answers that it is missing or is something else, undefined when it could
 * not be asked (ask another way). From a long-lived `cat-file --batch-check`,
 * so a chunk's files are sized in one round trip without reading them.
 */
export type BatchSize = (repo: string, object: string) => Promise<number | null | undefined>;

export function blobSizeReader(run: GitRunner): BatchSize {
  const ask = batchAsker(run, 'info');
  return async (repo, object) => {
    const a = await ask(repo, object);
    if (a === undefined) return undefined;
    return a.type === 'blob' ? a.size : null;
  };
}

/** What one batch process says of an object: its type and size (and bytes, with contents), or `missing`. */
type Answer = { type: string; size: number; content: Buffer | undefined } | { type: 'missing' };

function batchAsker(
  run: GitRunner,
  mode: Mode,
): (repo: string, object: string) => Promise<Answer | undefined> {
  const procs = new Map<string, BatchProcess>();
  return (repo, object) => {
    // The batch protocol is one object name per line.
    if (/[\n\r]/.test(object)) return Promise.resolve(undefined);
    let p = procs.get(repo);
    if (!p?.alive) {
      p = new BatchProcess(run, repo, mode, () => procs.delete(repo));
      procs.set(repo, p);
    }
    return p.read(object);
  };
}

/** `contents`: `cat-file --batch` (header and bytes); `info`: `cat-file --batch-check` (header alone). */
type Mode = 'contents' | 'info';

class BatchProcess {
  alive = true;
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly queue: Pending[] = [];
  /** Unparsed output, and the bytes the answer being read needs in all (0: not known yet). */
  private parts: Buffer[] = [];
  private have = 0;
  private need = 0;
  private idle: NodeJS.Timeout | null = null;
  /** Names asked and not yet written to git. */
  private asking: string[] = [];

  constructor(
    run: GitRunner,
    repo: string,
    private readonly mode: Mode,
    onEnd: () => void,
  ) {
    this.child = run.spawnPiped(repo, ['cat-file', mode === 'contents' ? '--batch' : '--batch-check']);
    const end = () => {
      if (!this.alive) return;
      this.alive = false;
      onEnd();
      for (const q of this.queue.splice(0)) q.resolve(undefined);
    };
    this.child.on('error', end);
    this.child.on('close', end);
    this.child.stdin.on('error', end);
    this.child.stderr.resume();
    this.child.stdout.on('data', (c: Buffer) => this.onData(c));
  }

  read(object: string): Promise<Answer | undefined> {
    if (this.idle) clearTimeout(this.idle);
    this.idle = null;
    this.hold(true);
    return new Promise((resolve) => {
      this.queue.push({ resolve });
      // The names asked in one turn of the event loop go in one write: a write per name was
      // a system call each, most of a 2,000-file change's context time (bench: large-change).
      if (this.asking.length === 0) queueMicrotask(() => this.send());
      this.asking.push(object);
    });
  }

  /**
   * Answers arrive in request order: `<oid> <type> <size>\n`, then (contents)
   * `<bytes>\n`; or `<object> missing\n`.
   */
  private onData(chunk: Buffer): void {
    this.parts.push(chunk);
    this.have += chunk.length;
    // A large blob arrives in many chunks: they are joined once it is whole, not on each arrival.
    if (this.need > 0 && this.have < this.need) return;
    let buf = this.parts.length === 1 ? (this.parts[0] as Buffer) : Buffer.concat(this.parts);
    this.parts = [];
    this.have = 0;
    this.need = 0;
    for (;;) {
      const nl = buf.indexOf(10);
      if (nl < 0) break;
      const m = /^[0-9a-f]+ (\S+) (\d+)$/.exec(buf.subarray(0, nl).toString('utf8'));
      let answer: Answer = { type: 'missing' };
      if (m) {
        const type = m[1] as string;
        const size = Number(m[2]);
        if (this.mode === 'info') {
          answer = { type, size, content: undefined };
          buf = buf.subarray(nl + 1);
        } else {
          const end = nl + 1 + size;
          if (buf.length < end + 1) {
            this.need = end + 1;
            break;
          }
          answer = { type, size, content: Buffer.from(buf.subarray(nl + 1, end)) };
          buf = buf.subarray(end + 1);
        }
      } else buf = buf.subarray(nl + 1);
      this.queue.shift()?.resolve(answer);
      if (this.queue.length === 0) this.goIdle();
    }
    if (buf.length > 0) {
      this.parts.push(buf);
      this.have = buf.length;
    }
  }

  private send(): void {
    const lines = `${this.asking.join('\n')}\n`;
    this.asking = [];
    this.child.stdin.write(lines);
  }

  private goIdle(): void {
    this.hold(false);
    this.idle = setTimeout(() => {
      this.alive = false;
      this.child.stdin.end();
    }, IDLE_MS);
    this.idle.unref();
  }

  /** Keeps the event loop alive only while an answer is awaited. */
  private hold(on: boolean): void {
    // The pipes are sockets at run time (they have ref/unref), though typed as plain streams.
    const handles: object[] = [this.child, this.child.stdin, this.child.stdout, this.child.stderr].filter(
      (h) => h !== null,
    );
    for (const h of handles) {
      const fn: unknown = Reflect.get(h, on ? 'ref' : 'unref');
      if (typeof fn === 'function') fn.call(h);
    }
  }
}
