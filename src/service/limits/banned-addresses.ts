import type { Clock } from '../clock.js';

/** Unknown keys looked up in the store per banned client address and minute, by default. */
export const LOOKUPS_PER_BANNED_ADDRESS = 10;

/** Banned addresses, and keys seen valid, that one instance remembers at most, each. */
const MAX_ENTRIES = 10_000;

/**
 * What this instance knows of banned client addresses, so that a banned address costs no store
 * lookup per request: an address sending keys of valid form that nobody issued (each would be
 * a query) is answered from memory. Learnt from the rate limiter's own answers (a ban on an
 * address); on several instances, each learns it from its first refusal of that address.
 *
 * A banned address keeps its promise to valid keys: a key this instance has seen valid is
 * always looked up (and so works, or is refused if revoked since); any other key from a banned
 * address is looked up at most `lookupsPerMinute` times a minute from it (a new customer behind
 * the same proxy gets in unless the address floods that allowance too). Memory is bounded.
 */
export class BannedAddresses {
  private readonly banned = new Map<string, { untilMs: number; minute: number; lookups: number }>();
  private readonly validKeys = new Set<string>();

  constructor(
    private readonly clock: Clock,
    private readonly lookupsPerMinute = LOOKUPS_PER_BANNED_ADDRESS,
    private readonly maxEntries = MAX_ENTRIES,
  ) {}

  /** The rate limiter banned `subject` (a client address) until `untilSec` (Unix seconds). */
  noteBanned(subject: string, untilSec: number): void {
    const known = this.banned.get(subject);
    if (known) {
      // Every answer to a banned address says so again: the minute's lookups stay counted.
      known.untilMs = untilSec * 1000;
      return;
    }
    if (this.banned.size >= this.maxEntries) this.banned.delete(this.banned.keys().next().value!);
    this.banned.set(subject, { untilMs: untilSec * 1000, minute: -1, lookups: 0 });
  }

  /** The key with this hash was found valid. */
  noteValid(hash: string): void {
    if (this.validKeys.has(hash)) return;
    if (this.validKeys.size >= this.maxEntries) this.validKeys.delete(this.validKeys.values().next().value!);
    this.validKeys.add(hash);
  }

  /** Whether any address is remembered as banned (when none is, nothing else needs asking). */
  get empty(): boolean {
    return this.banned.size === 0;
  }

  /** Whether the key with `hash`, sent from the address `subject`, should be looked up in the store. */
  mayLookUp(subject: string, hash: string): boolean {
    const entry = this.banned.get(subject);
    if (!entry) return true;
    const now = this.clock.now();
    if (entry.untilMs <= now) {
      this.banned.delete(subject);
      return true;
    }
    if (this.validKeys.has(hash)) return true;
    const minute = Math.floor(now / 60_000);
    if (entry.minute !== minute) {
      entry.minute = minute;
      entry.lookups = 0;
    }
    if (entry.lookups >= this.lookupsPerMinute) return false;
    entry.lookups++;
    return true;
  }
}
