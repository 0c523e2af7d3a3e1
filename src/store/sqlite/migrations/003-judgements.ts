/**
 * An eval judge's decisions (docs/eval.md): one row per call key, so an eval
 * on a kept ledger replays its judgements without calling the judge again.
 */
export default `
CREATE TABLE judgements (
  call_key TEXT PRIMARY KEY,
  run_id TEXT NOT NULL REFERENCES runs (id),
  case_id TEXT NOT NULL,
  judge TEXT NOT NULL,
  finding INTEGER NOT NULL,
  defect INTEGER NOT NULL,
  prompt_digest TEXT NOT NULL,
  model_id TEXT,
  reply TEXT NOT NULL,
  cost_usd REAL NOT NULL,
  recorded_at INTEGER NOT NULL
);
CREATE INDEX judgements_run ON judgements (run_id);
`;
