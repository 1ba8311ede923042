import { MIMEType } from 'node:util';

/** How the kit reads a body of a media type, and how a handler gets it. */
export type BodyKind = 'json' | 'form' | 'multipart' | 'xml' | 'text' | 'binary';

/** Whether a key of `content` is a media type (`type/subtype`, a range): some contracts put property names there. */
export const isMediaTypeKey = (key: string) => key.includes('/');

/** `Application/JSON; charset=utf-8` → `application/json`; undefined for what is not a media type. */
export function essenceOf(contentType: string | undefined): string | undefined {
  if (!contentType) return undefined;
  try {
    return new MIMEType(contentType).essence;
  } catch {
    return undefined;
  }
}

/** The `charset` parameter of a Content-Type, lower-cased, or undefined. */
export function charsetOf(contentType: string | undefined): string | undefined {
  try {
    return new MIMEType(contentType ?? '').params.get('charset')?.toLowerCase();
  } catch {
    return undefined;
  }
}

/** How a body of media type `essence` is read: JSON (`+json` too), form, multipart, XML (`+xml` too), text, or bytes. */
export function kindOf(essence: string): BodyKind {
  const [type, subtype = ''] = essence.split('/');
  if (subtype === 'json' || subtype.endsWith('+json')) return 'json';
  if (essence === 'application/x-www-form-urlencoded') return 'form';
  if (essence === 'multipart/form-data') return 'multipart';
  if (subtype === 'xml' || subtype.endsWith('+xml')) return 'xml';
  if (type === 'text') return 'text';
  return 'binary';
}

/**
 * The media type of `declared` (an operation's `content` keys) that a request or response of
 * `essence` falls under: the same type, else a range of its suffix (`application/*+json`, which
 * ASP.NET contracts declare), else a `type/*` range, else `*\/*`; undefined for none.
 */
export function matchMediaType(declared: readonly string[], essence: string): string | undefined {
  const [type, subtype = ''] = essence.split('/');
  const suffix = subtype.includes('+') ? subtype.slice(subtype.lastIndexOf('+')) : undefined;
  const ranked = (key: string) => {
    const wanted = key.split(';')[0]!.trim().toLowerCase();
    if (wanted === essence) return 0;
    if (suffix && wanted === `${type}/*${suffix}`) return 1;
    if (wanted === `${type}/*`) return 2;
    if (wanted === '*/*') return 3;
    return 4;
  };
  let best: string | undefined;
  for (const key of declared) if (ranked(key) < 4 && (best === undefined || ranked(key) < ranked(best))) best = key;
  return best;
}
