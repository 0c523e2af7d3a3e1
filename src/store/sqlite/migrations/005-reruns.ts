/**
 * A revision reviewed again on purpose (`review --rerun`): each rerun is a
 * run under its own admission key, tied to the revision's key, with its
 * ordinal, who asked and why. Runs made before this are their revision's
 * first run.
 */
export default `
ALTER TABLE runs ADD COLUMN revision_key TEXT;
ALTER TABLE runs ADD COLUMN rerun INTEGER NOT NULL DEFAULT 0;
ALTER TABLE runs ADD COLUMN rerun_by TEXT;
ALTER TABLE runs ADD COLUMN rerun_reason TEXT;
UPDATE runs SET revision_key = admission_key;
CREATE INDEX runs_revision ON runs (revision_key, rerun);
`;
