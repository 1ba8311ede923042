import { describe, expect, it } from 'vitest';
import { memoryCounters } from '../../src/service/limits/memory-counters.js';

describe('memoryCounters', () => {
  it("never evicts an API key's window for the addresses' sake", async () => {
    const counters = memoryCounters(1000);
    await counters.day.consume('key:key_1:20600');
    for (let i = 0; i < 5000; i++) await counters.day.consume(`address:10.0.${i >> 8}.${i & 255}:20600`);
    expect((await counters.day.get('key:key_1:20600'))?.consumedPoints).toBe(1);
    expect(await counters.day.get('address:10.0.0.0:20600')).toBeNull();
  });
});
