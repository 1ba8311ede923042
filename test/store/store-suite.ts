import { describe, expect, it } from 'vitest';
import type { ApiKeyRecord, Store } from '../../src/service/store/store.js';

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
        expect(await store.getPet(a.id)).toEqual({ id: a.id, name: 'Rex', categoryId: 3, status: 'available' });
        expect(await store.getPet(b.id)).toEqual({ id: b.id, name: 'Tom', categoryId: 9007199254740991, status: 'sold' });
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
      'keeps every field the contract may add beside the columns, as sent, and returns it from create, get, list and a replay',
      withStore(async (store) => {
        // Fields today's contract does not have: what a designer adding them to NewPet and Pet gets.
        // JSON.parse makes "__proto__" an own field, as a request body would.
        const other = JSON.parse(
          '{"tags":["friendly","small"],"weight":{"kg":12.5,"measured":null},"vaccinated":false,"nickname":"Ünï 🐕","__proto__":"kept"}',
        ) as Record<string, unknown>;
        const expectedFields = (id: number) => ({ id, name: 'Rex', categoryId: 3, status: 'pending', ...other });
        expect(await store.claimIdempotencyKey(scope, 'f1', timing('2026-06-01T12:00:00Z'))).toEqual({ outcome: 'claimed' });
        const created = await store.createPet({ name: 'Rex', categoryId: 3, status: 'pending', ...other }, scope);
        const expected = expectedFields(created.id);
        expect(created).toStrictEqual(expected);
        // "__proto__" came back as a field, and changed no prototype.
        expect(Object.hasOwn(created, '__proto__')).toBe(true);
        expect(Object.getPrototypeOf(created)).toBe(Object.prototype);
        expect(await store.getPet(created.id)).toStrictEqual(expected);
        expect(await store.listPets({ limit: 10 })).toStrictEqual([expected]);
        expect(await store.listPets({ limit: 10, status: 'pending' })).toStrictEqual([expected]);
        expect(await store.claimIdempotencyKey(scope, 'f1', timing('2026-06-01T12:00:01Z'))).toEqual({
          outcome: 'replay',
          status: 201,
          body: expected,
        });
        // An animal with only the columns' fields gets no others.
        const plain = await store.createPet({ name: 'Tom', categoryId: 1, status: 'pending' });
        expect(Object.keys(plain)).toEqual(['id', 'name', 'categoryId', 'status']);
        expect(Object.keys((await store.getPet(plain.id))!)).toEqual(['id', 'name', 'categoryId', 'status']);
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

    const timing = (iso: string) => ({ now: new Date(iso), lockMs: 30_000, retentionMs: 86_400_000 });
    const scope = { apiKeyId: 'key_a', key: 'retry-1' };

    it(
      'claims an Idempotency-Key once and replays the animal recorded with it',
      withStore(async (store) => {
        expect(await store.claimIdempotencyKey(scope, 'f1', timing('2026-06-01T12:00:00Z'))).toEqual({ outcome: 'claimed' });
        expect(await store.claimIdempotencyKey(scope, 'f1', timing('2026-06-01T12:00:01Z'))).toEqual({ outcome: 'in_flight' });
        const pet = await store.createPet({ name: 'Rex', categoryId: 1, status: 'available' }, scope);
        expect(await store.claimIdempotencyKey(scope, 'f1', timing('2026-06-01T12:00:02Z'))).toEqual({
          outcome: 'replay',
          status: 201,
          body: pet,
        });
        expect(await store.claimIdempotencyKey(scope, 'f2', timing('2026-06-01T12:00:02Z'))).toEqual({ outcome: 'mismatch' });
        // Scoped to the API key: another key's identical Idempotency-Key is a different claim.
        expect(await store.claimIdempotencyKey({ ...scope, apiKeyId: 'key_b' }, 'f1', timing('2026-06-01T12:00:02Z'))).toEqual({
          outcome: 'claimed',
        });
        // Releasing a completed claim changes nothing.
        await store.releaseIdempotencyKey(scope);
        expect((await store.claimIdempotencyKey(scope, 'f1', timing('2026-06-01T12:00:03Z'))).outcome).toBe('replay');
      }),
    );

    it(
      'lets a released, a stale or an expired claim be taken again',
      withStore(async (store) => {
        await store.claimIdempotencyKey(scope, 'f1', timing('2026-06-01T12:00:00Z'));
        await store.releaseIdempotencyKey(scope);
        expect(await store.claimIdempotencyKey(scope, 'f1', timing('2026-06-01T12:00:01Z'))).toEqual({ outcome: 'claimed' });
        // Its instance died: after the lock time the claim is taken over.
        expect(await store.claimIdempotencyKey(scope, 'f1', timing('2026-06-01T12:00:31Z'))).toEqual({ outcome: 'claimed' });
        await store.createPet({ name: 'Rex', categoryId: 1, status: 'available' }, scope);
        expect((await store.claimIdempotencyKey(scope, 'f2', timing('2026-06-02T12:00:30Z'))).outcome).toBe('mismatch');
        expect(await store.claimIdempotencyKey(scope, 'f2', timing('2026-06-02T12:00:32Z'))).toEqual({ outcome: 'claimed' });
      }),
    );

    it(
      'refuses to record a response under a key that was not claimed, and stores no animal then',
      withStore(async (store) => {
        await expect(
          store.createPet({ name: 'Rex', categoryId: 1, status: 'available' }, { apiKeyId: 'key_x', key: 'never' }),
        ).rejects.toThrow(/not claimed/);
        expect(await store.listPets({ limit: 10 })).toEqual([]);
      }),
    );

    it(
      'purges records older than the retention',
      withStore(async (store) => {
        await store.claimIdempotencyKey(scope, 'f1', timing('2026-06-01T12:00:00Z'));
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
