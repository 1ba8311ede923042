import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';

/** What a value set in memory keeps, once carried, when Redis holds one for the key already. */
export type SetKeeps = 'larger' | 'smaller';

/** What memory did to one Redis key during an outage: points added, a value set, until when it matters. */
interface Owed {
  add: number;
  value: number | null;
  keeps: SetKeeps;
  /** Unix milliseconds: past it, the memory's entry has expired, and so would Redis's. */
  expiresAt: number;
}

/** Keys carried by one script call: one round trip for each. */
const BATCH = 500;

/**
 * Carries one batch, once: the batch's marker is set first, with NX, so a batch sent again (its
 * answer was lost) changes nothing. Each key then gets the value set in memory (unless Redis holds
 * a larger or a smaller one, as the key's counter keeps) and the points added, with the memory
 * entry's remaining life when Redis has none. KEYS: the marker, the counters. ARGV: the marker's
 * life, then per counter: points, value ('' for none), keeps, life (seconds).
 */
const CARRY_SCRIPT = `
if not redis.call('SET', KEYS[1], '1', 'NX', 'EX', ARGV[1]) then return 0 end
for i = 2, #KEYS do
  local j = 4 * (i - 2) + 2
  local key, add, value, keeps, life = KEYS[i], tonumber(ARGV[j]), ARGV[j + 1], ARGV[j + 2], ARGV[j + 3]
  if value ~= '' then
    local held = tonumber(redis.call('GET', key))
    if not held or (keeps == 'larger' and held <= tonumber(value)) or (keeps == 'smaller' and held >= tonumber(value)) then
      redis.call('SET', key, value, 'EX', life)
    end
  end
  if add > 0 then
    redis.call('INCRBY', key, add)
    if redis.call('TTL', key) < 0 then redis.call('EXPIRE', key, life) end
  end
end
return 1`;

/**
 * What this instance counted in its memory while Redis failed, by Redis key, to be added to Redis
 * once it answers again: without it, a window that an outage touched was counted afresh in Redis
 * afterwards, and a key got its limit again on top of what the instances accepted meanwhile.
 * Carried in batches, each at most once (see CARRY_SCRIPT); a batch whose answer never came is
 * sent again, with its id, until Redis answers it. API keys' entries are all kept (they are as
 * many as the keys issued); those of client addresses at most `maxEntries`, the oldest dropped
 * first, as the memory counters drop them.
 */
export class OutageCounts {
  private readonly apiKeys = new Map<string, Owed>();
  private readonly others = new Map<string, Owed>();
  /** A batch sent whose answer never came: Redis may have carried it or not, its marker says which. */
  private unanswered: { id: string; entries: [string, Owed][] } | null = null;
  private readonly instance = randomUUID();
  private batches = 0;

  constructor(
    private readonly client: Redis,
    /** Prefix of the batches' markers in Redis. */
    private readonly prefix: string,
    private readonly maxEntries: number,
  ) {}

  /** Whether memory counted anything not yet in Redis. */
  get owed(): boolean {
    return this.unanswered !== null || this.apiKeys.size > 0 || this.others.size > 0;
  }

  /** Memory added `points` to `redisKey`'s entry, which lives `seconds` if new. */
  added(redisKey: string, apiKey: boolean, points: number, seconds: number): void {
    this.entry(redisKey, apiKey, seconds).add += points;
  }

  /** Memory set `redisKey` to `value` for `seconds`. */
  wasSet(redisKey: string, apiKey: boolean, value: number, seconds: number, keeps: SetKeeps): void {
    Object.assign(this.entry(redisKey, apiKey, seconds), { add: 0, value, keeps, expiresAt: Date.now() + seconds * 1000 });
  }

  /** Memory deleted `redisKey`: what it owed for it is void (a batch already sent stays sent). */
  deleted(redisKey: string): void {
    this.apiKeys.delete(redisKey);
    this.others.delete(redisKey);
  }

  private entry(redisKey: string, apiKey: boolean, seconds: number): Owed {
    const entries = apiKey ? this.apiKeys : this.others;
    let entry = entries.get(redisKey);
    if (!entry) {
      if (!apiKey && entries.size >= this.maxEntries) entries.delete(entries.keys().next().value!);
      entry = { add: 0, value: null, keeps: 'larger', expiresAt: Date.now() + seconds * 1000 };
      entries.set(redisKey, entry);
    }
    return entry;
  }

  /**
   * Adds to Redis everything owed for entries still alive, batch after batch; resolves with the
   * number of keys carried. Rejects when Redis fails a batch: that batch and the rest stay owed.
   */
  async carry(): Promise<number> {
    let carried = 0;
    for (;;) {
      this.unanswered ??= this.nextBatch();
      if (!this.unanswered) return carried;
      const { id, entries } = this.unanswered;
      const now = Date.now();
      const alive = entries.filter(([, owed]) => owed.expiresAt > now);
      if (alive.length > 0) await this.send(id, alive, now);
      this.unanswered = null;
      carried += alive.length;
    }
  }

  private nextBatch(): { id: string; entries: [string, Owed][] } | null {
    const entries: [string, Owed][] = [];
    for (const map of [this.apiKeys, this.others]) {
      for (const item of map) {
        if (entries.length === BATCH) break;
        entries.push(item);
        map.delete(item[0]);
      }
    }
    return entries.length === 0 ? null : { id: `${this.instance}:${++this.batches}`, entries };
  }

  private async send(id: string, entries: [string, Owed][], now: number): Promise<void> {
    const life = (owed: Owed) => String(Math.max(1, Math.ceil((owed.expiresAt - now) / 1000)));
    // The marker outlives every entry of its batch: sent again later, the batch has none left alive.
    const markerLife = Math.max(...entries.map(([, owed]) => Number(life(owed)))) + 60;
    const args = entries.flatMap(([, owed]) => [String(owed.add), owed.value === null ? '' : String(owed.value), owed.keeps, life(owed)]);
    await this.client.eval(
      CARRY_SCRIPT,
      entries.length + 1,
      `${this.prefix}:carried:${id}`,
      ...entries.map(([key]) => key),
      markerLife,
      ...args,
    );
  }
}
