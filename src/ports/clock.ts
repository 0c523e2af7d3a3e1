/** Time and randomness are passed in, so decisions stay replayable and tests need no fake timers. */
export interface Clock {
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export interface Random {
  /** Uniform in [0, 1). */
  next(): number;
}
