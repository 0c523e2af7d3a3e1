/**
 * Coverage means content. git shows a file as binary when a NUL byte is in
 * its first 8000 bytes, and reviewers are then told only that it changed. A
 * NUL in a comment makes a source file (JavaScript runs with one) "binary" to
 * git, and its code reached no reviewer. A file that decodes as UTF-8, NULs
 * and all, is text that git hid: the review stage raises it for a person. An
 * image or an archive is not valid UTF-8 and stays what git says it is.
 */
export function textHiddenAsBinary(bytes: Uint8Array): boolean {
  if (!bytes.includes(0)) return false;
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
}

/** Whether a prompt section shows its file as git's binary line (no hunk line can start so). */
export const shownAsBinary = (sectionText: string): boolean => sectionText.includes('\nBinary files ');
