/** Errors of reading the config. */
import { RevloopError } from '../core/errors.js';

/** The config or criteria could not be loaded or is invalid (exit 2). */
export class ConfigLoadError extends RevloopError {
  constructor(message: string, data: Record<string, unknown> = {}) {
    super('config', message, data);
  }
}
