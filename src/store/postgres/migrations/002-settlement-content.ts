/**
 * Invariant 16: a settlement binds to the content it judged. A finding keeps
 * the digest of what it judged at its revision, and a settlement carried over
 * from an earlier run names the finding a person actually decided.
 */
export default `
ALTER TABLE findings ADD COLUMN content text;
ALTER TABLE settlements ADD COLUMN origin jsonb;
`;
