/**
 * What another machine needs of a run that only its driver's machine had:
 * the fix commits, as git bundles with the commit id each must yield (checked
 * on import), and the signed record's envelope. Both are kept in the ledger,
 * so any clone can take a run over, write its record or apply its fixes.
 */
export default `
CREATE TABLE fix_bundles (
  run_id TEXT NOT NULL REFERENCES runs (id),
  commit_id TEXT NOT NULL,
  bundle BLOB NOT NULL,
  recorded_at INTEGER NOT NULL,
  PRIMARY KEY (run_id, commit_id)
);

CREATE TABLE run_records (
  run_id TEXT PRIMARY KEY REFERENCES runs (id),
  envelope TEXT NOT NULL,
  recorded_at INTEGER NOT NULL
);
`;
