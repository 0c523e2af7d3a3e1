/**
 * Whether each call attempt ran confined (io/confine.ts): a record says
 * `confined: true` only when every attempt of its run did, so the answer is
 * kept per attempt and survives a resume by another controller. Attempts
 * made before this existed were not.
 */
export default `
ALTER TABLE attempts ADD COLUMN confined INTEGER NOT NULL DEFAULT 0;
`;
