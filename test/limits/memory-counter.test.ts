import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MemoryCounter } from '../../src/limits/limiter.js';

// The memory counters replace rate-limiter-flexible's for one instance; they must count and
// expire as it does, without a promise.
describe('MemoryCounter', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-06-01T00:00:00Z'));
  });
  afterEach(() => vi.useRealTimers());

  it('counts per key, at once', () => {
    const counter = new MemoryCounter(60);
    expect(counter.consume('a').consumedPoints).toBe(1);
    expect(counter.consume('a').consumedPoints).toBe(2);
    expect(counter.consume('a', 3).consumedPoints).toBe(5);
    expect(counter.consume('b').consumedPoints).toBe(1);
    expect(counter.get('a')?.consumedPoints).toBe(5);
    expect(counter.get('c')).toBeNull();
  });

  it('forgets a key after its duration, or the custom duration it was created with', () => {
    const counter = new MemoryCounter(60);
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
    const counter = new MemoryCounter(86_400);
    counter.set('ban', 1_780_000_000, 600);
    expect(counter.get('ban')?.consumedPoints).toBe(1_780_000_000);
    vi.advanceTimersByTime(600_000);
    expect(counter.get('ban')).toBeNull();
    counter.set('ban', 1, 600);
    counter.delete('ban');
    expect(counter.get('ban')).toBeNull();
  });
});
