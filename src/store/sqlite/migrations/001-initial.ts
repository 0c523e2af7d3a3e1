/**
 * The ledger's first schema (SQLite). Invariant 3 lives in the partial unique
 * index on runs.admission_key; invariant 6 in verdicts.call_key; invariant 5
 * in the stages primary key; invariant 2 in the runs CHECKs.
 */
export default `
CREATE TABLE changes (
  change_key TEXT PRIMARY KEY,
  repo TEXT NOT NULL,
  first_seen_at INTEGER NOT NULL
);

CREATE TABLE snapshots (
  snapshot_key TEXT PRIMARY KEY,
  snapshot TEXT NOT NULL,
  created_at INTEGER NOT NULL
);

CREATE TABLE runs (
  id TEXT PRIMARY KEY,
  admission_key TEXT NOT NULL,
  change_key TEXT NOT NULL REFERENCES changes (change_key),
  repo TEXT NOT NULL,
  snapshot_key TEXT NOT NULL REFERENCES snapshots (snapshot_key),
  status TEXT NOT NULL CHECK (status IN ('queued','running','completed','failed','aborted','timed_out','unknown')),
  outcome TEXT CHECK (outcome IN ('clear','findings')),
  stop_reason TEXT,
  reason TEXT,
  detail TEXT,
  head TEXT NOT NULL,
  rounds_done INTEGER NOT NULL DEFAULT 0,
  cost_usd REAL NOT NULL DEFAULT 0,
  budget_usd REAL NOT NULL,
  fencing_token INTEGER NOT NULL DEFAULT 0,
  lease_owner TEXT,
  lease_expires_at INTEGER,
  record_path TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  ended_at INTEGER,
  CHECK (outcome IS NULL OR status = 'completed'),
  CHECK (status <> 'completed' OR outcome IS NOT NULL)
);
CREATE UNIQUE INDEX runs_admission_key_held ON runs (admission_key)
  WHERE status IN ('queued','running','completed');
CREATE INDEX runs_claimable ON runs (created_at) WHERE status IN ('queued','running');
CREATE INDEX runs_change ON runs (change_key);
CREATE INDEX runs_created ON runs (created_at);

CREATE TABLE rounds (
  run_id TEXT NOT NULL REFERENCES runs (id),
  round INTEGER NOT NULL,
  head TEXT NOT NULL,
  started_at INTEGER NOT NULL,
  PRIMARY KEY (run_id, round)
);

CREATE TABLE stages (
  run_id TEXT NOT NULL REFERENCES runs (id),
  round INTEGER NOT NULL,
  stage TEXT NOT NULL,
  snapshot_key TEXT NOT NULL,
  result TEXT NOT NULL,
  completed_at INTEGER NOT NULL,
  PRIMARY KEY (run_id, round, stage)
);

CREATE TABLE attempts (
  run_id TEXT NOT NULL REFERENCES runs (id),
  call_key TEXT NOT NULL,
  attempt_no INTEGER NOT NULL,
  round INTEGER NOT NULL,
  stage TEXT NOT NULL,
  role TEXT NOT NULL,
  reviewer TEXT NOT NULL,
  class TEXT NOT NULL,
  detail TEXT,
  started_at INTEGER NOT NULL,
  ended_at INTEGER,
  PRIMARY KEY (run_id, call_key, attempt_no)
);

CREATE TABLE verdicts (
  call_key TEXT PRIMARY KEY,
  run_id TEXT NOT NULL REFERENCES runs (id),
  round INTEGER NOT NULL,
  stage TEXT NOT NULL,
  role TEXT NOT NULL,
  reviewer TEXT NOT NULL,
  revision TEXT NOT NULL,
  prompt_digest TEXT NOT NULL,
  model_id TEXT,
  reply TEXT NOT NULL,
  cost_usd REAL NOT NULL,
  recorded_at INTEGER NOT NULL
);
CREATE INDEX verdicts_run ON verdicts (run_id);

CREATE TABLE findings (
  id TEXT PRIMARY KEY,
  run_id TEXT NOT NULL REFERENCES runs (id),
  round INTEGER NOT NULL,
  reviewer TEXT NOT NULL,
  revision TEXT NOT NULL,
  call_key TEXT NOT NULL,
  idx INTEGER NOT NULL,
  reported TEXT NOT NULL,
  severity TEXT NOT NULL,
  gate TEXT NOT NULL,
  refutation TEXT,
  dispute TEXT
);
CREATE INDEX findings_run ON findings (run_id);

CREATE TABLE settlements (
  finding_id TEXT PRIMARY KEY REFERENCES findings (id),
  by TEXT NOT NULL,
  decision TEXT NOT NULL CHECK (decision IN ('upheld','overturned')),
  note TEXT,
  at INTEGER NOT NULL
);

CREATE TABLE events (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  run_id TEXT NOT NULL REFERENCES runs (id),
  at INTEGER NOT NULL,
  kind TEXT NOT NULL,
  data TEXT NOT NULL
);
CREATE INDEX events_run ON events (run_id, id);
`;
