import { canonicalAddress } from 'contract-kit';

/**
 * The limiter's subject for a request without a valid key: its canonical client address
 * (contract-kit's canonicalAddress, by which connections are capped too: IPv4, or an IPv6 /64).
 * A forged X-Forwarded-For entry that is no address gives way to the connection's own address.
 */
export function addressSubject(ip: string | undefined, socketAddress: string | undefined): string {
  return `address:${canonicalAddress(ip) ?? canonicalAddress(socketAddress) ?? 'unknown'}`;
}
