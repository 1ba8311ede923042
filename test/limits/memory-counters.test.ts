import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AddressCounter } from '../../src/service/limits/address-counter.js';
import { MemoryCounter, memoryCounters } from '../../src/service/limits/memory-counters.js';

// Both counters of the memory backend: MemoryCounter (API keys) and AddressCounter (client
// addresses) count and expire as rate-limiter-flexible's do, without a promise.
describe.each([
  ['MemoryCounter', (seconds: number): MemoryCounter | AddressCounter => new MemoryCounter(seconds)],
  ['AddressCounter', (seconds: number): MemoryCounter | AddressCounter => new AddressCounter(seconds, 1000)],
])('%s', (_name, newCounter) => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-06-01T00:00:00Z'));
  });
  afterEach(() => vi.useRealTimers());

  it('counts per key, at once', () => {
    const counter = newCounter(60);
    expect(counter.consume('a').consumedPoints).toBe(1);
    expect(counter.consume('a').consumedPoints).toBe(2);
    expect(counter.consume('a', 3).consumedPoints).toBe(5);
    expect(counter.consume('b').consumedPoints).toBe(1);
    expect(counter.get('a')?.consumedPoints).toBe(5);
    expect(counter.get('c')).toBeNull();
  });

  it('forgets a key after its duration, or the custom duration it was created with', () => {
    const counter = newCounter(60);
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
    const counter = newCounter(86_400);
    counter.set('ban', 1_780_000_000, 600);
    expect(counter.get('ban')?.consumedPoints).toBe(1_780_000_000);
    vi.advanceTimersByTime(600_000);
    expect(counter.get('ban')).toBeNull();
    counter.set('ban', 1, 600);
    counter.delete('ban');
    expect(counter.get('ban')).toBeNull();
  });

  // Issue 13, finding 4: every distinct client address kept an entry for a day, without bound.
});

describe('MemoryCounter', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-06-01T00:00:00Z'));
  });
  afterEach(() => vi.useRealTimers());

  it('drops every expired key, read or not, when a new key comes a minute after the last sweep', () => {
    const counter = new MemoryCounter(60);
    for (let i = 0; i < 1000; i++) counter.consume(`client-${i}`);
    expect(counter.size).toBe(1000);
    vi.advanceTimersByTime(30_000);
    counter.consume('during the window');
    expect(counter.size).toBe(1001);
    vi.advanceTimersByTime(30_000);
    // The 1000 keys have expired, but nothing was asked since: they are still held.
    expect(counter.size).toBe(1001);
    vi.advanceTimersByTime(1);
    counter.consume('a new key after the minute');
    // The sweep kept only what has not expired: the key of 30 s ago and the new one.
    expect(counter.size).toBe(2);
    expect(counter.get('during the window')?.consumedPoints).toBe(1);
  });

  it('keeps at most maxEntries keys, forgetting the oldest first', () => {
    const counter = new MemoryCounter(86_400, 1000);
    for (let i = 0; i < 5000; i++) counter.consume(`address:${i}`);
    expect(counter.size).toBe(1000);
    expect(counter.evicted).toBe(4000);
    expect(counter.get('address:0')).toBeNull();
    expect(counter.get('address:4999')?.consumedPoints).toBe(1);
    // A key counted again keeps its count while it is among the newest.
    expect(counter.consume('address:4999').consumedPoints).toBe(2);
    expect(counter.size).toBe(1000);
  });

  it("never evicts an API key's window for the addresses' sake", async () => {
    const counters = memoryCounters(1000);
    await counters.day.consume('key:key_1:20600');
    for (let i = 0; i < 5000; i++) await counters.day.consume(`address:10.0.${i >> 8}.${i & 255}:20600`);
    expect((await counters.day.get('key:key_1:20600'))?.consumedPoints).toBe(1);
    expect(await counters.day.get('address:10.0.0.0:20600')).toBeNull();
  });

  it('moves a renewed entry to the end of the eviction order', () => {
    const counter = new MemoryCounter(86_400, 3);
    counter.set('ban', 1, 600);
    counter.consume('a');
    counter.consume('b');
    counter.set('ban', 2, 600);
    counter.consume('c');
    expect(counter.get('ban')?.consumedPoints).toBe(2);
    expect(counter.get('a')).toBeNull();
  });
});
