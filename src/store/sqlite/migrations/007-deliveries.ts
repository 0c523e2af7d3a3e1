/**
 * Webhook deliveries, each kept once by its sender's id and once by its
 * body's digest, and the pull request a run was admitted for (its trigger),
 * which the worker that ends the run publishes to once.
 */
export default `
CREATE TABLE deliveries (
  forge TEXT NOT NULL,
  delivery_id TEXT NOT NULL,
  body_digest TEXT NOT NULL,
  event TEXT NOT NULL,
  intent TEXT NOT NULL,
  repository TEXT NOT NULL,
  pr INTEGER NOT NULL,
  head TEXT,
  base_branch TEXT NOT NULL,
  sender TEXT,
  state TEXT NOT NULL,
  detail TEXT,
  run_id TEXT REFERENCES runs (id),
  received_at INTEGER NOT NULL,
  claimed_until INTEGER,
  attempts INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (forge, delivery_id),
  UNIQUE (forge, body_digest)
);
CREATE INDEX deliveries_pending ON deliveries (received_at) WHERE state = 'pending';

CREATE TABLE run_triggers (
  run_id TEXT PRIMARY KEY REFERENCES runs (id),
  forge TEXT NOT NULL,
  repository TEXT NOT NULL,
  pr INTEGER NOT NULL,
  delivery_id TEXT NOT NULL,
  recorded_at INTEGER NOT NULL,
  claimed_until INTEGER,
  published_at INTEGER,
  detail TEXT
);
CREATE INDEX run_triggers_unpublished ON run_triggers (recorded_at) WHERE published_at IS NULL;
`;
