/**
 * An eval judge's decisions (docs/eval.md): one row per call key, so an eval
 * on a kept ledger replays its judgements without calling the judge again.
 */
export default `
CREATE TABLE judgements (
  call_key text PRIMARY KEY,
  seq bigserial NOT NULL,
  run_id text NOT NULL REFERENCES runs (id),
  case_id text NOT NULL,
  judge text NOT NULL,
  finding integer NOT NULL,
  defect integer NOT NULL,
  prompt_digest text NOT NULL,
  model_id text,
  reply jsonb NOT NULL,
  cost_usd double precision NOT NULL,
  recorded_at bigint NOT NULL
);
CREATE INDEX judgements_run ON judgements (run_id, seq);
`;
