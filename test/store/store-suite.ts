import { describe, expect, it } from 'vitest';
import { ClaimLostError } from '../../src/service/store/claim-lost-error.js';
import { PET_COLUMNS } from '../../src/service/store/pet-record.js';
import type { ApiKeyRecord, HeldClaim, Store } from '../../src/service/store/store.js';
import { asStored } from '../support/stored-animal.js';

/**
 * The behaviour every Store implementation must have. Each engine's test file calls this with
 * a factory that opens a fresh, empty store on the real engine.
 */
export function defineStoreSuite(engine: string, open: () => Promise<Store>): void {
  const withStore = (test: (store: Store) => Promise<void>) => async () => {
    const store = await open();
    try {
      await test(store);
    } finally {
      await store.close();
    }
  };

  const keyRecord = (overrides: Partial<ApiKeyRecord> = {}): ApiKeyRecord => ({
    id: `key_${Math.random().toString(16).slice(2, 14)}`,
    name: 'test',
    plan: 'free',
    perMinute: null,
    perDay: null,
    environment: 'production',
    hash: Math.random().toString(16).repeat(4).slice(0, 64),
    displayPrefix: 'as_prod_abcd',
    createdAt: '2026-06-01T12:00:00.000Z',
    revokedAt: null,
    ...overrides,
  });

  describe(`${engine} store`, () => {
    it(
      'creates animals with increasing ids and reads them back',
      withStore(async (store) => {
        const a = await store.createPet({ name: 'Rex', categoryId: 3, status: 'available' });
        const b = await store.createPet({ name: 'Tom', categoryId: 9007199254740991, status: 'sold' });
        expect(b.id).toBeGreaterThan(a.id);
        expect(await store.getPet(a.id)).toEqual(asStored({ id: a.id, name: 'Rex', categoryId: 3, status: 'available' }, a));
        expect(await store.getPet(b.id)).toEqual(asStored({ id: b.id, name: 'Tom', categoryId: 9007199254740991, status: 'sold' }, b));
        expect(typeof (await store.getPet(b.id))!.id).toBe('number');
        expect(await store.getPet(b.id + 1000)).toBeUndefined();
      }),
    );

    it(
      'lists by id ascending after a given id, with and without a status filter',
      withStore(async (store) => {
        const statuses = ['available', 'pending', 'sold'] as const;
        const created = [];
        for (let i = 0; i < 30; i++) created.push(await store.createPet({ name: `P${i}`, categoryId: 1, status: statuses[i % 3]! }));
        const ids = created.map((p) => p.id);
        expect((await store.listPets({ limit: 10 })).map((p) => p.id)).toEqual(ids.slice(0, 10));
        expect((await store.listPets({ limit: 10, afterId: ids[9] })).map((p) => p.id)).toEqual(ids.slice(10, 20));
        expect(await store.listPets({ limit: 100, afterId: ids[29] })).toEqual([]);
        const sold = created.filter((p) => p.status === 'sold').map((p) => p.id);
        expect((await store.listPets({ limit: 4, status: 'sold' })).map((p) => p.id)).toEqual(sold.slice(0, 4));
        expect((await store.listPets({ limit: 100, status: 'sold', afterId: sold[3] })).map((p) => p.id)).toEqual(sold.slice(4));
      }),
    );

    it(
      'gives the id of the last animal added, 0 before the first: where a feed begins',
      withStore(async (store) => {
        expect(await store.lastPetId()).toBe(0);
        await store.createPet({ name: 'Rex', categoryId: 3, status: 'available' });
        const last = await store.createPet({ name: 'Tom', categoryId: 9007199254740991, status: 'sold' });
        expect(await store.lastPetId()).toBe(last.id);
      }),
    );

    it(
      'keeps every field the contract may add beside the columns, as sent, and returns it from create, get, list and a replay',
      withStore(async (store) => {
        // Fields today's contract does not have: what a designer adding them to NewPet and Pet gets.
        // JSON.parse makes "__proto__" an own field, as a request body would.
        const other = JSON.parse(
          '{"tags":["friendly","small"],"weight":{"kg":12.5,"measured":null},"vaccinated":false,"nickname":"Ünï 🐕","__proto__":"kept"}',
        ) as Record<string, unknown>;
        const expectedFields = (id: number) => ({ id, name: 'Rex', categoryId: 3, status: 'pending', ...other });
        const created = await store.createPet({ name: 'Rex', categoryId: 3, status: 'pending', ...other }, await claim(store, '12:00:00'));
        const expected = asStored(expectedFields(created.id), created);
        expect(created).toStrictEqual(expected);
        // "__proto__" came back as a field, and changed no prototype.
        expect(Object.hasOwn(created, '__proto__')).toBe(true);
        expect(Object.getPrototypeOf(created)).toBe(Object.prototype);
        expect(await store.getPet(created.id)).toStrictEqual(expected);
        expect(await store.listPets({ limit: 10 })).toStrictEqual([expected]);
        expect(await store.listPets({ limit: 10, status: 'pending' })).toStrictEqual([expected]);
        expect(await claimAt(store, '12:00:01')).toEqual({ outcome: 'replay', status: 201, body: expected });
        // An animal with only the columns' fields gets no others.
        const plain = await store.createPet({ name: 'Tom', categoryId: 1, status: 'pending' });
        expect(Object.keys(plain)).toEqual(['id', ...Object.keys(PET_COLUMNS)]);
        expect(Object.keys((await store.getPet(plain.id))!)).toEqual(['id', ...Object.keys(PET_COLUMNS)]);
      }),
    );

    it(
      'keeps keys by hash, lists them and revokes them once',
      withStore(async (store) => {
        const enterprise = keyRecord({ plan: 'enterprise', perMinute: 5, perDay: 50, environment: 'staging' });
        const free = keyRecord();
        await store.insertKey(enterprise);
        await store.insertKey(free);
        expect(await store.findKeyByHash(enterprise.hash)).toEqual(enterprise);
        expect(await store.findKeyByHash('0'.repeat(64))).toBeUndefined();
        expect((await store.listKeys()).map((k) => k.id).sort()).toEqual([enterprise.id, free.id].sort());

        const revoked = await store.revokeKey(free.id, new Date('2026-06-02T00:00:00Z'));
        expect(revoked?.revokedAt).toBe('2026-06-02T00:00:00.000Z');
        const again = await store.revokeKey(free.id, new Date('2026-06-03T00:00:00Z'));
        expect(again?.revokedAt).toBe('2026-06-02T00:00:00.000Z');
        expect((await store.findKeyByHash(free.hash))?.revokedAt).toBe('2026-06-02T00:00:00.000Z');
        expect(await store.revokeKey('key_nope', new Date())).toBeUndefined();
      }),
    );

    it(
      'refuses two keys with the same hash',
      withStore(async (store) => {
        const record = keyRecord();
        await store.insertKey(record);
        await expect(store.insertKey({ ...record, id: 'key_other' })).rejects.toThrow();
      }),
    );

    const timing = (iso: string) => ({ now: new Date(iso), lockMs: 3000, retentionMs: 86_400_000 });
    const scope = { apiKeyId: 'key_a', key: 'retry-1' };
    const rex = { name: 'Rex', categoryId: 1, status: 'available' } as const;
    /** The claim on `scope` made at `time` on 1 June 2026 (UTC), which must be granted. */
    async function claim(store: Store, time: string, on = scope): Promise<HeldClaim> {
      const result = await store.claimIdempotencyKey(on, 'f1', timing(`2026-06-01T${time}Z`));
      if (result.outcome !== 'claimed') throw new Error(`expected the claim at ${time} to be granted, got ${JSON.stringify(result)}`);
      expect(result.held).toEqual({ ...on, token: result.held.token });
      expect(result.held.token).toMatch(/^[0-9a-f-]{36}$/);
      return result.held;
    }
    const claimAt = (store: Store, time: string, fingerprint = 'f1') =>
      store.claimIdempotencyKey(scope, fingerprint, timing(`2026-06-01T${time}Z`));

    it(
      'claims an Idempotency-Key once and replays the animal recorded with it',
      withStore(async (store) => {
        const held = await claim(store, '12:00:00');
        expect(await claimAt(store, '12:00:01')).toEqual({ outcome: 'in_flight', lockedUntil: new Date('2026-06-01T12:00:03Z') });
        const pet = await store.createPet(rex, held);
        expect(await claimAt(store, '12:00:02')).toEqual({ outcome: 'replay', status: 201, body: pet });
        expect(await claimAt(store, '12:00:02', 'f2')).toEqual({ outcome: 'mismatch' });
        // Scoped to the API key: another key's identical Idempotency-Key is a different claim.
        const other = await claim(store, '12:00:02', { ...scope, apiKeyId: 'key_b' });
        expect(other.token).not.toBe(held.token);
        // Releasing or renewing a completed claim changes nothing.
        await store.releaseIdempotencyKey(held);
        expect(await store.renewIdempotencyKey(held, new Date('2026-06-01T12:00:03Z'))).toBe(false);
        expect((await claimAt(store, '12:00:03')).outcome).toBe('replay');
      }),
    );

    it(
      'lets a released, a lapsed or an expired claim be taken again',
      withStore(async (store) => {
        await store.releaseIdempotencyKey(await claim(store, '12:00:00'));
        await claim(store, '12:00:01');
        expect(await claimAt(store, '12:00:03.999')).toEqual({ outcome: 'in_flight', lockedUntil: new Date('2026-06-01T12:00:04Z') });
        // Not renewed for the lock time (its instance died): taken over.
        const held = await claim(store, '12:00:04');
        await store.createPet(rex, held);
        expect((await store.claimIdempotencyKey(scope, 'f2', timing('2026-06-02T12:00:03Z'))).outcome).toBe('mismatch');
        expect((await store.claimIdempotencyKey(scope, 'f2', timing('2026-06-02T12:00:04Z'))).outcome).toBe('claimed');
      }),
    );

    it(
      'renews a claim for its holder only, so that it lapses the lock time after its last renewal',
      withStore(async (store) => {
        const held = await claim(store, '12:00:00');
        expect(await store.renewIdempotencyKey(held, new Date('2026-06-01T12:00:02Z'))).toBe(true);
        expect(await claimAt(store, '12:00:04')).toEqual({ outcome: 'in_flight', lockedUntil: new Date('2026-06-01T12:00:05Z') });
        expect(await store.renewIdempotencyKey({ ...held, token: 'not the holder' }, new Date('2026-06-01T12:00:04Z'))).toBe(false);
        const next = await claim(store, '12:00:05');
        // Taken over: the first holder renews nothing any more.
        expect(await store.renewIdempotencyKey(held, new Date('2026-06-01T12:00:05Z'))).toBe(false);
        expect(await claimAt(store, '12:00:06')).toEqual({ outcome: 'in_flight', lockedUntil: new Date('2026-06-01T12:00:08Z') });
        expect(await store.renewIdempotencyKey(next, new Date('2026-06-01T12:00:06Z'))).toBe(true);
      }),
    );

    it(
      'lets only the holder of the current claim record its creation or release it, so a stalled request whose claim was taken over adds nothing',
      withStore(async (store) => {
        const stalled = await claim(store, '12:00:00');
        const current = await claim(store, '12:00:03');
        await expect(store.createPet(rex, stalled)).rejects.toThrow(ClaimLostError);
        expect(await store.listPets({ limit: 10 })).toEqual([]);
        await store.releaseIdempotencyKey(stalled);
        expect(await claimAt(store, '12:00:04')).toEqual({ outcome: 'in_flight', lockedUntil: new Date('2026-06-01T12:00:06Z') });
        const pet = await store.createPet(rex, current);
        await expect(store.createPet(rex, stalled)).rejects.toThrow(/not claimed/);
        expect(await claimAt(store, '12:00:05')).toEqual({ outcome: 'replay', status: 201, body: pet });
        expect(await store.listPets({ limit: 10 })).toEqual([pet]);
      }),
    );

    it(
      'refuses to record a response under a key that was not claimed, and stores no animal then',
      withStore(async (store) => {
        await expect(store.createPet(rex, { apiKeyId: 'key_x', key: 'never', token: 'none' })).rejects.toThrow(/not claimed/);
        expect(await store.listPets({ limit: 10 })).toEqual([]);
      }),
    );

    it(
      'purges records older than the retention',
      withStore(async (store) => {
        await claimAt(store, '12:00:00');
        await store.claimIdempotencyKey({ ...scope, key: 'later' }, 'f1', timing('2026-06-02T12:00:00Z'));
        expect(await store.purgeIdempotencyKeys(new Date('2026-06-02T00:00:00Z'))).toBe(1);
      }),
    );

    it(
      'answers ping',
      withStore(async (store) => {
        await expect(store.ping()).resolves.toBeUndefined();
      }),
    );
  });
}
