/**
 * The database was migrated by a newer release: it has schema versions this one does not know,
 * and may not read its schema right. No wait fixes that, so the service stops at once.
 */
export class SchemaTooNewError extends Error {
  override name = 'SchemaTooNewError';

  constructor(readonly unknownVersions: readonly number[]) {
    super(
      `The database has schema version(s) ${unknownVersions.join(', ')} that this release does not know; it was written by a newer release. ` +
        'Run that release, or a newer one, on it.',
    );
  }
}
