/**
 * The target of the `rel="next"` link of a Link header, or null. Relative targets are resolved
 * against a placeholder origin: only their path and query matter.
 * @see RFC 8288, section 3
 */
export function parseNextLink(header: string | null): URL | null {
  if (!header) return null;
  for (const part of header.split(/,(?=\s*<)/)) {
    const match = /^\s*<([^>]*)>(.*)$/.exec(part);
    if (!match) continue;
    const rels =
      /;\s*rel="?([^";]+)"?/i
        .exec(match[2] ?? '')?.[1]
        ?.toLowerCase()
        .split(/\s+/) ?? [];
    if (rels.includes('next')) return new URL(match[1]!, 'http://link.invalid');
  }
  return null;
}
