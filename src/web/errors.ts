import { RevloopError } from '../core/errors.js';

/** The dashboard could not start (port taken, address not available). */
export class UiStartError extends RevloopError {
  constructor(
    readonly host: string,
    readonly port: number,
    cause: string,
  ) {
    super('ui_start', `revloop ui: cannot listen on ${host}:${port}: ${cause}`, { host, port, cause });
  }
}
