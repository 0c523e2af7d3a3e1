/**
 * What another machine needs of a run that only its driver's machine had:
 * the fix commits, as git bundles with the commit id each must yield (checked
 * on import), and the signed record's envelope. Both are kept in the ledger,
 * so any clone can take a run over, write its record or apply its fixes.
 */
export default `
CREATE TABLE fix_bundles (
  run_id text NOT NULL REFERENCES runs (id),
  commit_id text NOT NULL,
  bundle bytea NOT NULL,
  recorded_at bigint NOT NULL,
  PRIMARY KEY (run_id, commit_id)
);

CREATE TABLE run_records (
  run_id text PRIMARY KEY REFERENCES runs (id),
  envelope text NOT NULL,
  recorded_at bigint NOT NULL
);
`;
