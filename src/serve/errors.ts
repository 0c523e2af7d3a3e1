/** Refusals of `revloop serve` before it listens. */
import { RevloopError } from '../core/errors.js';

/** A service is many processes sharing one queue: an embedded ledger cannot be it. Exit 15. */
export class ServiceNeedsPostgresError extends RevloopError {
  constructor(kind: string) {
    super(
      'service_needs_postgres',
      `revloop serve needs a PostgreSQL ledger (--store postgres://…), not ${kind}: a service is many processes sharing one queue`,
      { kind },
    );
  }
}
