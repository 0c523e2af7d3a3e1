import { jsonSafe } from './terminal-safe.js';

/** What a command may touch of its process: passed in, so commands never reach for globals. */
export interface CliIO {
  cwd: string;
  env: NodeJS.ProcessEnv;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /**
   * stderr without escaping, for the live progress line's own control
   * sequences only; whatever else goes in it passes through terminalSafe first.
   */
  progress: (text: string) => void;
  /** Whether stdout is a terminal (live progress only then). */
  isTTY: boolean;
  /** Resolves when SIGINT/SIGTERM arrives (workers finish the current call, then stop). */
  stopSignal: AbortSignal;
  /** The run this command is driving (null once it ended), so an interrupt can say how to resume it. */
  noteRun: (runId: string | null) => void;
  /** How a user runs this CLI again (`revloop` when it is on PATH), for hints that name commands. */
  self: string;
}

/** A lazily loaded command: parsed positional args and options in, exit code out. */
export type Command<O = Record<string, unknown>> = (args: string[], opts: O, io: CliIO) => Promise<number>;

export const printJson = (io: CliIO, value: unknown): void =>
  io.stdout(jsonSafe(`${JSON.stringify(value, null, 2)}\n`));
