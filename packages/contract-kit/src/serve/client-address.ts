import { isIPv4, isIPv6 } from 'node:net';

/** The eight 16-bit groups of an IPv6 address (`::` expanded, an embedded IPv4 converted). */
function ipv6Groups(address: string): number[] | null {
  const [head = '', tail] = address.split('::', 2);
  const parse = (part: string): number[] | null => {
    if (part === '') return [];
    const groups: number[] = [];
    for (const piece of part.split(':')) {
      if (isIPv4(piece)) {
        const [a, b, c, d] = piece.split('.').map(Number) as [number, number, number, number];
        groups.push((a << 8) | b, (c << 8) | d);
      } else {
        groups.push(Number.parseInt(piece, 16));
      }
    }
    return groups.some(Number.isNaN) ? null : groups;
  };
  const front = parse(head);
  const back = tail === undefined ? [] : parse(tail);
  if (!front || !back) return null;
  const missing = 8 - front.length - back.length;
  if (missing < 0 || (tail === undefined && missing !== 0)) return null;
  return [...front, ...new Array<number>(missing).fill(0), ...back];
}

/**
 * A client address in one canonical spelling, as connections are capped by it (and a rate
 * limiter may count by it): IPv4 as is (also when
 * written as an IPv4-mapped IPv6 address), IPv6 by its /64 network, since one host is usually
 * given a whole /64 and could otherwise take a fresh address for every request. Anything that is
 * not an IP address (a forged X-Forwarded-For entry) gives null: the caller uses the connection's
 * own address. Never the raw text, so a client cannot make a counter keep strings of its choice.
 */
export function canonicalAddress(address: string | undefined): string | null {
  if (!address) return null;
  const bare = address.split('%', 1)[0]!;
  if (isIPv4(bare)) return bare;
  if (!isIPv6(bare)) return null;
  const groups = ipv6Groups(bare.toLowerCase());
  if (!groups) return null;
  const mapped = groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff;
  if (mapped) return `${groups[6]! >> 8}.${groups[6]! & 255}.${groups[7]! >> 8}.${groups[7]! & 255}`;
  return `${groups
    .slice(0, 4)
    .map((g) => g.toString(16))
    .join(':')}::/64`;
}
