import { describe, expect, it } from 'vitest';
import { canonicalAddress } from 'contract-kit';
import { addressSubject } from '../../src/service/limits/client-address.js';

// Subjects are canonical addresses, never the raw text a client sent.
describe('canonicalAddress', () => {
  it.each([
    ['1.2.3.4', '1.2.3.4'],
    ['::ffff:1.2.3.4', '1.2.3.4'],
    ['::FFFF:0102:0304', '1.2.3.4'],
    ['2001:db8::1', '2001:db8:0:0::/64'],
    ['2001:DB8:0:0:1:2:3:4', '2001:db8:0:0::/64'],
    ['2001:0db8:0000:0000:ffff::2', '2001:db8:0:0::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
  ])('%s is limited as %s', (address, subject) => {
    expect(canonicalAddress(address)).toBe(subject);
  });

  it.each(['', 'hello', '1.2.3.4.5', '2001:db8::1::2', '1:2:3:4:5:6:7:8:9', 'x'.repeat(5000)])('%s is not an address', (text) => {
    expect(canonicalAddress(text)).toBeNull();
  });

  it("falls back to the connection's address when the forwarded one is not an address", () => {
    expect(addressSubject('<script>', '127.0.0.1')).toBe('address:127.0.0.1');
    expect(addressSubject('2001:db8::7', '127.0.0.1')).toBe('address:2001:db8:0:0::/64');
  });
});
