/**
 * A verdict's reuse key (the digest of its call's complete input, on calls
 * whose input is the prompt alone) and, on a reused verdict, the call it was
 * reused from; the index answers "a verdict of this repository under this key".
 */
export default `
ALTER TABLE verdicts ADD COLUMN reuse_key TEXT;
ALTER TABLE verdicts ADD COLUMN reused_from TEXT;
CREATE INDEX verdicts_reuse ON verdicts (reuse_key) WHERE reuse_key IS NOT NULL;
`;
