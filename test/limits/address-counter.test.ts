import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AddressCounter } from '../../src/service/limits/address-counter.js';

// The counters of client addresses: the same answers as the memory counter of API keys
// (memory-counters.test.ts), in a table of fixed size whatever the number of addresses (issue 13,
// finding 4).
describe('AddressCounter', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-06-01T00:00:00Z'));
  });
  afterEach(() => vi.useRealTimers());

  it('holds at most its capacity whatever the number of addresses, keeping the newest', () => {
    const counter = new AddressCounter(86_400, 1000);
    expect(counter.capacity).toBe(1024);
    for (let i = 0; i < 100_000; i++) {
      counter.consume(`ip:2001:db8:${(i >> 16).toString(16)}:${(i & 0xffff).toString(16)}::/64:20600`);
      // A millisecond between addresses, so that the oldest expires first and goes first.
      vi.advanceTimersByTime(1);
    }
    expect(counter.size).toBeLessThanOrEqual(1024);
    expect(counter.size).toBeGreaterThan(900);
    expect(counter.evicted).toBeGreaterThanOrEqual(100_000 - 1024);
    const newest = Array.from({ length: 100 }, (_, k) => 100_000 - 1 - k);
    for (const i of newest)
      expect(counter.get(`ip:2001:db8:${(i >> 16).toString(16)}:${(i & 0xffff).toString(16)}::/64:20600`)?.consumedPoints).toBe(1);
    expect(counter.get('ip:2001:db8:0:0::/64:20600')).toBeNull();
  });

  it('tells apart keys that differ in one character, among many', () => {
    const counter = new AddressCounter(60, 200_000);
    for (let i = 0; i < 100_000; i++) counter.consume(`ip:10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}:29000`, (i % 7) + 1);
    for (let i = 0; i < 100_000; i++) {
      expect(counter.get(`ip:10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}:29000`)?.consumedPoints).toBe((i % 7) + 1);
    }
    expect(counter.evicted).toBe(0);
  });
});
