/**
 * SQLite and file-system failures as the store's named faults, one clear line
 * each. Anything not recognised is rethrown untouched: a bug is not a fault.
 */
import { RevloopError } from '../../core/errors.js';
import { StoreCorruptError, StoreFullError, StoreLockedError, StoreReadonlyError } from '../errors.js';

export function mapSqliteFault(err: unknown, where: string): unknown {
  if (err instanceof RevloopError || !(err instanceof Error)) return err;
  const code = String((err as { code?: unknown }).code ?? '');
  const cause = err.message.startsWith(code) ? err.message : `${code}: ${err.message}`;
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED'))
    return new StoreLockedError(where, cause);
  if (code.startsWith('SQLITE_READONLY') || code === 'SQLITE_PERM' || code.startsWith('SQLITE_CANTOPEN'))
    return new StoreReadonlyError(where, cause);
  if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS') return new StoreReadonlyError(where, cause);
  if (code === 'SQLITE_FULL' || code === 'ENOSPC' || /ENOSPC|disk is full/i.test(err.message))
    return new StoreFullError(where, cause);
  if (code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB')
    return new StoreCorruptError(where, cause);
  return err;
}
