import type { Counter, CounterValue } from './counters.js';

/** Slots looked at for one key: where its hash points, then 1, 3, 6, 10… further (triangular probing). */
const PROBES = 16;

/** Two 32-bit FNV-1a hashes of `key` with different offsets: a 64-bit fingerprint. */
function fingerprint(key: string): [number, number] {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ 0x5bd1e995;
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
    b ^= b >>> 15;
  }
  // Murmur3's finaliser, so that close keys land far apart in the table.
  b ^= a;
  b = Math.imul(b ^ (b >>> 16), 0x85ebca6b);
  b = Math.imul(b ^ (b >>> 13), 0xc2b2ae35);
  b ^= b >>> 16;
  return [a >>> 0, b >>> 0];
}

/**
 * Counters of client addresses in a fixed table of typed arrays, keyed by a 64-bit fingerprint
 * of the key rather than the key itself: however many distinct addresses come, it holds at most
 * `capacity` entries in memory allocated once (24 bytes a slot), and allocates nothing that
 * outlives a request. A Map of key strings and entry objects held as much data, but each entry
 * lived long enough to be promoted to V8's old space, so a flood of distinct addresses left the
 * process tens of megabytes larger after it was collected (see `npm run adversarial`).
 *
 * A key lives in one of PROBES slots from where its fingerprint points (triangular
 * probing, which spreads keys better than the next slots would); when all of them hold
 * live entries of other keys, the one expiring first is forgotten (evicted). What an evicted
 * address gains: its window starts afresh (at most one more window's worth of requests), or,
 * for a ban, it ends early. Two addresses share a counter only if their 64-bit fingerprints are
 * equal (about one chance in 10^10 among the table's entries).
 */
export class AddressCounter implements Counter {
  private readonly mask: number;
  private readonly high: Uint32Array;
  private readonly low: Uint32Array;
  private readonly points: Float64Array;
  /** Milliseconds since the epoch; 0 for an empty slot. */
  private readonly expiresAt: Float64Array;
  /** Live entries forgotten to make room, since the start. */
  evicted = 0;

  constructor(
    private readonly durationSeconds: number,
    capacity: number,
  ) {
    const slots = 2 ** Math.ceil(Math.log2(Math.max(PROBES, capacity)));
    this.mask = slots - 1;
    this.high = new Uint32Array(slots);
    this.low = new Uint32Array(slots);
    this.points = new Float64Array(slots);
    this.expiresAt = new Float64Array(slots);
  }

  /** Slots in the table: the most entries it holds. */
  get capacity(): number {
    return this.mask + 1;
  }

  /** Live entries now (a scan of the table: for tests and reports). */
  get size(): number {
    const now = Date.now();
    return this.expiresAt.reduce((n, expiry) => (expiry > now ? n + 1 : n), 0);
  }

  /** The slot holding `key`, alive at `now`, or -1. */
  private find(high: number, low: number, now: number): number {
    for (let probe = 0; probe < PROBES; probe++) {
      const slot = (low + ((probe * (probe + 1)) >>> 1)) & this.mask;
      if (this.high[slot] === high && this.low[slot] === low && this.expiresAt[slot]! > now) return slot;
    }
    return -1;
  }

  /** A slot for a new entry of `key`: a free or expired one, else the one expiring first. */
  private place(high: number, low: number, now: number): number {
    let chosen = -1;
    for (let probe = 0; probe < PROBES; probe++) {
      const slot = (low + ((probe * (probe + 1)) >>> 1)) & this.mask;
      if (this.expiresAt[slot]! <= now || (this.high[slot] === high && this.low[slot] === low)) return slot;
      if (chosen === -1 || this.expiresAt[slot]! < this.expiresAt[chosen]!) chosen = slot;
    }
    this.evicted++;
    return chosen;
  }

  private write(slot: number, high: number, low: number, points: number, expiresAt: number): void {
    this.high[slot] = high;
    this.low[slot] = low;
    this.points[slot] = points;
    this.expiresAt[slot] = expiresAt;
  }

  get(key: string): CounterValue | null {
    const [high, low] = fingerprint(key);
    const slot = this.find(high, low, Date.now());
    return slot === -1 ? null : { consumedPoints: this.points[slot]! };
  }

  consume(key: string, points = 1, options: { customDuration?: number } = {}): CounterValue {
    const now = Date.now();
    const [high, low] = fingerprint(key);
    let slot = this.find(high, low, now);
    if (slot === -1) {
      slot = this.place(high, low, now);
      this.write(slot, high, low, 0, now + (options.customDuration ?? this.durationSeconds) * 1000);
    }
    this.points[slot]! += points;
    return { consumedPoints: this.points[slot]! };
  }

  set(key: string, points: number, secDuration: number): void {
    const now = Date.now();
    const [high, low] = fingerprint(key);
    const found = this.find(high, low, now);
    this.write(found === -1 ? this.place(high, low, now) : found, high, low, points, now + secDuration * 1000);
  }

  delete(key: string): void {
    const [high, low] = fingerprint(key);
    const slot = this.find(high, low, Date.now());
    if (slot !== -1) this.expiresAt[slot] = 0;
  }
}
