import type Database from 'better-sqlite3';
import { StoreUnavailableError } from '../store-unavailable-error.js';

/**
 * SQLite's codes for a write the file system refused: out of space, an I/O error, a file that
 * cannot be opened or written. Not the request's fault, and over when the disk is: 503.
 * @see https://www.sqlite.org/rescode.html
 */
const UNWRITABLE = /^SQLITE_(FULL|IOERR|CANTOPEN|READONLY)/;

/**
 * Whether the file system takes the store's writes. After a write it refused, the store is not
 * ready (see check) until a write succeeds again.
 */
export class WriteHealth {
  /** The last write the file system refused, until a write succeeds again. */
  private refused: StoreUnavailableError | null = null;

  constructor(private readonly db: Database.Database) {}

  /** A write refused by the file system as a StoreUnavailableError, noted for check; any other error as it was. */
  failed(error: unknown): unknown {
    const code = (error as { code?: unknown }).code;
    if (typeof code !== 'string' || !UNWRITABLE.test(code)) return error;
    this.refused = new StoreUnavailableError(`The SQLite file cannot be written (${code}).`, { cause: error });
    return this.refused;
  }

  /** A write went through: the file system takes writes again. */
  succeeded(): void {
    this.refused = null;
  }

  /**
   * Throws while the file system refuses writes. After a refused write, it tries one: the
   * database header's user_version written back unchanged, so that readiness comes back once
   * space does, whether or not a client writes in the meantime.
   */
  check(): void {
    if (!this.refused) return;
    try {
      this.db.pragma(`user_version = ${Number(this.db.pragma('user_version', { simple: true }))}`);
      this.refused = null;
    } catch (error) {
      throw this.failed(error);
    }
  }
}
