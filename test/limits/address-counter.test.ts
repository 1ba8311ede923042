import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AddressCounter } from '../../src/service/limits/address-counter.js';

// The counters of client addresses: they count and expire as rate-limiter-flexible's do (which
// keep API keys' windows), without a promise, in a table of fixed size whatever the number of
// addresses.
describe('AddressCounter', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-06-01T00:00:00Z'));
  });
  afterEach(() => vi.useRealTimers());

  it('counts per key, at once', () => {
    const counter = new AddressCounter(60, 1000);
    expect(counter.consume('a').consumedPoints).toBe(1);
    expect(counter.consume('a').consumedPoints).toBe(2);
    expect(counter.consume('a', 3).consumedPoints).toBe(5);
    expect(counter.consume('b').consumedPoints).toBe(1);
    expect(counter.get('a')?.consumedPoints).toBe(5);
    expect(counter.get('c')).toBeNull();
  });

  it('forgets a key after its duration, or the custom duration it was created with', () => {
    const counter = new AddressCounter(60, 1000);
    counter.consume('minute');
    counter.consume('short', 1, { customDuration: 5 });
    vi.advanceTimersByTime(5_000);
    expect(counter.get('short')).toBeNull();
    expect(counter.get('minute')?.consumedPoints).toBe(1);
    vi.advanceTimersByTime(55_000);
    expect(counter.get('minute')).toBeNull();
    expect(counter.consume('minute').consumedPoints).toBe(1);
  });

  it('sets and deletes values with their own lifetime', () => {
    const counter = new AddressCounter(86_400, 1000);
    counter.set('ban', 1_780_000_000, 600);
    expect(counter.get('ban')?.consumedPoints).toBe(1_780_000_000);
    vi.advanceTimersByTime(600_000);
    expect(counter.get('ban')).toBeNull();
    counter.set('ban', 1, 600);
    counter.delete('ban');
    expect(counter.get('ban')).toBeNull();
  });

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
