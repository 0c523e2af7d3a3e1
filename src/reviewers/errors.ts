import { RevloopError } from '../core/errors.js';

/** An agent configuration the factory cannot build an adapter from (the config schema normally prevents it). */
export class ReviewerConfigError extends RevloopError {
  constructor(message: string, data: Record<string, unknown> = {}) {
    super('reviewer_config', message, data);
  }
}
