/**
 * What tells apart operations that share a URL, as contracts written from query- or
 * header-dispatched APIs write it in the path key: `/#Action=ListDomains` (a query parameter
 * with that value), `/#X-Amz-Target=Service.Operation` (a header), `/things/{id}#versionId` or
 * `/pic?key={APIKEY}` (a query parameter that must be there, whatever its value).
 */
export interface Dispatch {
  in: 'query' | 'header';
  name: string;
  /** The value it must have; null: any, as long as it is there. */
  value: string | null;
}

/** A path key of the contract as a request reaches it: the path before `#` or `?`, and the parameters after it. */
export interface PathKey {
  urlPath: string;
  dispatch: Dispatch[];
}

/**
 * Splits a path key at its first `#` or `?`. Each `name=value` or `name` after it is a header
 * where the operation declares a header of that name or the name starts with `X-`, else a query
 * parameter; a value written `{name}` is any value. A bare name the operation declares no
 * parameter of is a label (`labels`), not sent: Azure writes `/{nextLink}#Operations_ListNext`
 * to keep apart path keys of one URL.
 */
export function splitPathKey(key: string, declared: readonly { name: string; in: string }[]): PathKey & { labels: string[] } {
  const at = key.search(/[#?]/);
  if (at < 0) return { urlPath: key, dispatch: [], labels: [] };
  const urlPath = key.slice(0, at) || '/';
  const dispatch: Dispatch[] = [];
  const labels: string[] = [];
  for (const part of key.slice(at + 1).split(/[&#?]/)) {
    if (part === '') continue;
    const equals = part.indexOf('=');
    const name = decodeURIComponent(equals < 0 ? part : part.slice(0, equals));
    const raw = equals < 0 ? null : decodeURIComponent(part.slice(equals + 1));
    const value = raw === null || /^\{[^{}]*\}$/.test(raw) ? null : raw;
    const own = declared.find((p) => (p.in === 'header' ? p.name.toLowerCase() === name.toLowerCase() : p.name === name));
    const where = own?.in === 'header' || (!own && /^x-/i.test(name)) ? 'header' : 'query';
    if (!own && equals < 0 && where === 'query') labels.push(name);
    else dispatch.push({ in: where, name, value });
  }
  return { urlPath, dispatch, labels };
}
