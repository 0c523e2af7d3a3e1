import { describe, expect, it } from 'vitest';
import { shownAsBinary, textHiddenAsBinary } from '../../src/core/hidden-text.js';
import { binaryBytes } from '../helpers/binary-bytes.js';

describe('text git shows as binary', () => {
  it('UTF-8 text with a NUL byte is hidden text; without one it is plain text', () => {
    expect(textHiddenAsBinary(Buffer.from('// é \u0000\nrun();\n'))).toBe(true);
    expect(textHiddenAsBinary(Buffer.from('run();\n'))).toBe(false);
  });
  it('bytes that are no UTF-8 (an image, an archive) stay binary', () => {
    expect(textHiddenAsBinary(binaryBytes(4096, 3))).toBe(false);
  });
  it("a section shows git's binary line only in its header", () => {
    expect(shownAsBinary('diff --git a/x b/x\nindex 1..2\nBinary files a/x and b/x differ\n')).toBe(true);
    expect(shownAsBinary('diff --git a/x b/x\n@@ -1 +1 @@\n+Binary files a/x and b/x differ\n')).toBe(false);
  });
});
