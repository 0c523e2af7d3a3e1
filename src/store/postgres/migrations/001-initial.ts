/**
 * The ledger's first schema (PostgreSQL). Times are epoch milliseconds taken
 * from the database clock (revloop_now_ms), so leases are judged on one clock
 * however many machines run workers. JSON columns are jsonb.
 */
export default `
CREATE FUNCTION revloop_now_ms() RETURNS bigint LANGUAGE sql VOLATILE AS
  $$ SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint $$;

CREATE TABLE changes (
  change_key text PRIMARY KEY,
  repo text NOT NULL,
  first_seen_at bigint NOT NULL
);

CREATE TABLE snapshots (
  snapshot_key text PRIMARY KEY,
  snapshot jsonb NOT NULL,
  created_at bigint NOT NULL
);

CREATE TABLE runs (
  id text PRIMARY KEY,
  seq bigserial NOT NULL,
  admission_key text NOT NULL,
  change_key text NOT NULL REFERENCES changes (change_key),
  repo text NOT NULL,
  snapshot_key text NOT NULL REFERENCES snapshots (snapshot_key),
  status text NOT NULL CHECK (status IN ('queued','running','completed','failed','aborted','timed_out','unknown')),
  outcome text CHECK (outcome IN ('clear','findings')),
  stop_reason text,
  reason text,
  detail text,
  head text NOT NULL,
  rounds_done integer NOT NULL DEFAULT 0,
  cost_usd double precision NOT NULL DEFAULT 0,
  budget_usd double precision NOT NULL,
  fencing_token bigint NOT NULL DEFAULT 0,
  lease_owner jsonb,
  lease_expires_at bigint,
  record_path text,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL,
  ended_at bigint,
  CHECK (outcome IS NULL OR status = 'completed'),
  CHECK (status <> 'completed' OR outcome IS NOT NULL)
);
CREATE UNIQUE INDEX runs_admission_key_held ON runs (admission_key)
  WHERE status IN ('queued','running','completed');
CREATE INDEX runs_claimable ON runs (created_at, seq) WHERE status IN ('queued','running');
CREATE INDEX runs_change ON runs (change_key);
CREATE INDEX runs_created ON runs (created_at);

CREATE TABLE rounds (
  run_id text NOT NULL REFERENCES runs (id),
  round integer NOT NULL,
  head text NOT NULL,
  started_at bigint NOT NULL,
  PRIMARY KEY (run_id, round)
);

CREATE TABLE stages (
  run_id text NOT NULL REFERENCES runs (id),
  round integer NOT NULL,
  stage text NOT NULL,
  snapshot_key text NOT NULL,
  result jsonb NOT NULL,
  completed_at bigint NOT NULL,
  PRIMARY KEY (run_id, round, stage)
);

CREATE TABLE attempts (
  seq bigserial NOT NULL,
  run_id text NOT NULL REFERENCES runs (id),
  call_key text NOT NULL,
  attempt_no integer NOT NULL,
  round integer NOT NULL,
  stage text NOT NULL,
  role text NOT NULL,
  reviewer text NOT NULL,
  class text NOT NULL,
  detail text,
  started_at bigint NOT NULL,
  ended_at bigint,
  PRIMARY KEY (run_id, call_key, attempt_no)
);

CREATE TABLE verdicts (
  call_key text PRIMARY KEY,
  seq bigserial NOT NULL,
  run_id text NOT NULL REFERENCES runs (id),
  round integer NOT NULL,
  stage text NOT NULL,
  role text NOT NULL,
  reviewer text NOT NULL,
  revision text NOT NULL,
  prompt_digest text NOT NULL,
  model_id text,
  reply jsonb NOT NULL,
  cost_usd double precision NOT NULL,
  recorded_at bigint NOT NULL
);
CREATE INDEX verdicts_run ON verdicts (run_id, seq);

CREATE TABLE findings (
  id text PRIMARY KEY,
  seq bigserial NOT NULL,
  run_id text NOT NULL REFERENCES runs (id),
  round integer NOT NULL,
  reviewer text NOT NULL,
  revision text NOT NULL,
  call_key text NOT NULL,
  idx integer NOT NULL,
  reported jsonb NOT NULL,
  severity text NOT NULL,
  gate jsonb NOT NULL,
  refutation jsonb,
  dispute jsonb
);
CREATE INDEX findings_run ON findings (run_id, seq);

CREATE TABLE settlements (
  finding_id text PRIMARY KEY REFERENCES findings (id),
  by text NOT NULL,
  decision text NOT NULL CHECK (decision IN ('upheld','overturned')),
  note text,
  at bigint NOT NULL
);

CREATE TABLE events (
  id bigserial PRIMARY KEY,
  run_id text NOT NULL REFERENCES runs (id),
  at bigint NOT NULL,
  kind text NOT NULL,
  data jsonb NOT NULL
);
CREATE INDEX events_run ON events (run_id, id);
`;
