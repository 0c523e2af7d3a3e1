/** REVLOOP_CONFINE's values: a mistyped one is a usage error (exit 2), never a silent default. */
import { describe, expect, it } from 'vitest';
import { exitCodeFor } from '../../src/cli/exit-codes.js';
import { confineMode } from '../../src/io/confine.js';

describe('REVLOOP_CONFINE', () => {
  it('reads auto, require and off; the flag makes it require', () => {
    expect(confineMode({})).toBe('auto');
    expect(confineMode({ REVLOOP_CONFINE: 'off' })).toBe('off');
    expect(confineMode({ REVLOOP_CONFINE: 'require' })).toBe('require');
    expect(confineMode({ REVLOOP_CONFINE: 'off' }, true)).toBe('require');
  });

  it('a mistyped value is refused as a usage error naming it', () => {
    let err: unknown;
    try {
      confineMode({ REVLOOP_CONFINE: 'requre' });
    } catch (e) {
      err = e;
    }
    expect((err as Error).message).toContain('REVLOOP_CONFINE="requre" refused');
    expect(exitCodeFor(err)).toBe(2);
  });
});
