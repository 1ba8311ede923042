import { InvalidRequestError } from './errors/invalid-request-error.js';

/**
 * Opaque cursors for keyset pagination over `id`: the last id of a page, base64url-encoded.
 * Clients must not build them; the form may change.
 */
export function encodeCursor(lastId: number): string {
  return Buffer.from(String(lastId)).toString('base64url');
}

/** Decodes a cursor back to the id to continue after; a 400 naming `query.cursor` when it is not one of ours. */
export function decodeCursor(cursor: string): number {
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const id = /^[1-9]\d{0,15}$/.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(id) || encodeCursor(id) !== cursor) {
    throw new InvalidRequestError([
      { field: 'query.cursor', message: 'is not a cursor this service issued; take it from the Link header' },
    ]);
  }
  return id;
}

/** `Link: <…>; rel="next"` for the page after `lastId`. @see RFC 8288 */
export function nextLink(basePath: string, path: string, query: Record<string, string | number | undefined>, lastId: number): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined && name !== 'cursor') params.set(name, String(value));
  params.set('cursor', encodeCursor(lastId));
  return `<${basePath}${path}?${params.toString()}>; rel="next"`;
}
