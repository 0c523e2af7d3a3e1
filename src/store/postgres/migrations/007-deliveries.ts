/**
 * Webhook deliveries, each kept once by its sender's id and once by its
 * body's digest, and the pull request a run was admitted for (its trigger),
 * which the worker that ends the run publishes to once.
 */
export default `
CREATE TABLE deliveries (
  forge text NOT NULL,
  delivery_id text NOT NULL,
  body_digest text NOT NULL,
  event text NOT NULL,
  intent text NOT NULL,
  repository text NOT NULL,
  pr integer NOT NULL,
  head text,
  base_branch text NOT NULL,
  sender text,
  state text NOT NULL,
  detail text,
  run_id text REFERENCES runs (id),
  received_at bigint NOT NULL,
  claimed_until bigint,
  attempts integer NOT NULL DEFAULT 0,
  PRIMARY KEY (forge, delivery_id),
  UNIQUE (forge, body_digest)
);
CREATE INDEX deliveries_pending ON deliveries (received_at) WHERE state = 'pending';

CREATE TABLE run_triggers (
  run_id text PRIMARY KEY REFERENCES runs (id),
  forge text NOT NULL,
  repository text NOT NULL,
  pr integer NOT NULL,
  delivery_id text NOT NULL,
  recorded_at bigint NOT NULL,
  claimed_until bigint,
  published_at bigint,
  detail text
);
CREATE INDEX run_triggers_unpublished ON run_triggers (recorded_at) WHERE published_at IS NULL;
`;
