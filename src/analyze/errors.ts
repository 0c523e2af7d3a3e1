import { UsageError } from '../core/errors.js';

/** A round log that is not JSON or does not match the format; `path` is a JSONPath like `$.rounds[2]`. */
export class RoundLogError extends UsageError {
  constructor(
    readonly path: string,
    readonly problem: string,
  ) {
    super(`${path}: ${problem}`, { path, problem });
  }
}
