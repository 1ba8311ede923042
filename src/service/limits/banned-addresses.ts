import type { Clock } from '../clock.js';
import { VALID_KEY_SECONDS, type Counter } from './counters.js';

/** Unknown keys looked up in the store per banned client address and minute, by default. */
export const LOOKUPS_PER_BANNED_ADDRESS = 10;

/** Banned addresses, and keys noted valid, that one instance remembers at most, each. */
const MAX_ENTRIES = 10_000;

/** How often, at most, one instance notes again in the shared counter a key it found valid: an hour. */
const VALID_KEY_REFRESH_MS = 3_600_000;

/**
 * What this instance knows of banned client addresses, so that a banned address costs no store
 * lookup per request: an address sending keys of valid form that nobody issued (each would be
 * a query) is answered from memory. Learnt from the rate limiter's own answers (a ban on an
 * address); on several instances, each learns it from its first refusal of that address.
 *
 * A banned address keeps its promise to valid keys: a key found valid anywhere is always looked
 * up (and so works, or is refused if revoked since). Keys found valid are noted in `validKeys`,
 * the rate limiter's counter of them: in Redis, shared by every instance and kept across their
 * restarts (for VALID_KEY_SECONDS after they were last noted); in memory, lost with a restart as
 * the bans themselves are. Any other key from a banned address is looked up at most
 * `lookupsPerMinute` times a minute from it (a new customer behind the same proxy gets in unless
 * the address floods that allowance too). So a key from a banned address costs at most a read
 * of that counter, never a store lookup; memory is bounded.
 */
export class BannedAddresses {
  private readonly banned = new Map<string, { untilMs: number; minute: number; lookups: number }>();
  /** Keys known valid, by hash, with when this instance last noted them in `validKeys` (Unix ms). */
  private readonly validKeysNoted = new Map<string, number>();

  constructor(
    private readonly clock: Clock,
    private readonly validKeys: Counter,
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

  /** The key with this hash was found valid: noted in `validKeys`, at most once an hour by this instance. */
  async noteValid(hash: string): Promise<void> {
    const now = this.clock.now();
    const noted = this.validKeysNoted.get(hash);
    if (noted !== undefined && now - noted < VALID_KEY_REFRESH_MS) return;
    await this.validKeys.set(hash, 1, VALID_KEY_SECONDS);
    this.remember(hash, now);
  }

  private remember(hash: string, notedMs: number): void {
    this.validKeysNoted.delete(hash);
    if (this.validKeysNoted.size >= this.maxEntries) this.validKeysNoted.delete(this.validKeysNoted.keys().next().value!);
    this.validKeysNoted.set(hash, notedMs);
  }

  /** Whether any address is remembered as banned (when none is, nothing else needs asking). */
  get empty(): boolean {
    return this.banned.size === 0;
  }

  /** Whether the key with `hash`, sent from the address `subject`, should be looked up in the store. */
  async mayLookUp(subject: string, hash: string): Promise<boolean> {
    const entry = this.banned.get(subject);
    if (!entry) return true;
    const now = this.clock.now();
    if (entry.untilMs <= now) {
      this.banned.delete(subject);
      return true;
    }
    if (this.validKeysNoted.has(hash)) return true;
    // Found valid by another instance, or by this one before a restart. Remembered here as not
    // noted yet, so that this instance's next use of the key notes it again.
    if (await this.validKeys.get(hash)) {
      this.remember(hash, -Infinity);
      return true;
    }
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
