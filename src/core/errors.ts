/**
 * The base of revloop's named errors. Each layer declares its own classes in
 * one module (store/errors.ts, git/errors.ts, ...); the CLI turns a `code`
 * into a one-line message and an exit code.
 */
export class RevloopError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly data: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** Bad input from a user: flags, config, refs. Exit 2. */
export class UsageError extends RevloopError {
  constructor(message: string, data: Record<string, unknown> = {}) {
    super('usage', message, data);
  }
}

export class ConfigError extends RevloopError {
  constructor(message: string, data: Record<string, unknown> = {}) {
    super('config', message, data);
  }
}
