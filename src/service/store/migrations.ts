import type { Engine } from './records.js';

/**
 * One schema change. A database applies it once, in the order of MIGRATIONS, and records it in
 * its table schema_migrations (version, name, applied_at) in the same transaction.
 */
export interface Migration {
  /** Its row in schema_migrations: existing databases hold these, so never renumber or rename one. */
  readonly version: number;
  readonly name: string;
  /**
   * Its statements: one text that both engines run, or each engine's side by side. `null` where an
   * engine has nothing to do: that engine neither applies nor records it, so its bookkeeping stays
   * what earlier releases wrote (and a rollback to one of them still opens the database).
   */
  readonly sql: string | Readonly<Record<Engine, string | null>>;
}

/**
 * The schema of both engines, as one ordered list of migrations (applied by sqlite/sqlite-migrate.ts
 * and postgres/postgres-migrate.ts). Append; never edit one that has shipped: databases that
 * applied it will not apply it again.
 */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'create pets',
    sql: {
      sqlite: `
      CREATE TABLE pets (
        id          INTEGER PRIMARY KEY AUTOINCREMENT,
        name        TEXT    NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
        category_id INTEGER NOT NULL CHECK (category_id BETWEEN 1 AND 9007199254740991),
        status      TEXT    NOT NULL CHECK (status IN ('available', 'pending', 'sold')),
        created_at  TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
      );
      -- Serves GET /pets?status=…: the filter and the keyset order from one index.
      CREATE INDEX pets_status_id ON pets (status, id);
    `,
      postgres: `
      CREATE TABLE pets (
        id          BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        name        TEXT   NOT NULL CHECK (char_length(name) BETWEEN 1 AND 100),
        category_id BIGINT NOT NULL CHECK (category_id BETWEEN 1 AND 9007199254740991),
        status      TEXT   NOT NULL CHECK (status IN ('available', 'pending', 'sold')),
        created_at  TIMESTAMPTZ NOT NULL DEFAULT now()
      );
      -- Serves GET /pets?status=…: the filter and the keyset order from one index.
      CREATE INDEX pets_status_id ON pets (status, id);
    `,
    },
  },
  {
    version: 2,
    name: 'create api_keys',
    sql: `
      CREATE TABLE api_keys (
        id             TEXT PRIMARY KEY,
        name           TEXT NOT NULL,
        plan           TEXT NOT NULL CHECK (plan IN ('free', 'pro', 'business', 'enterprise')),
        per_minute     INTEGER,
        per_day        INTEGER,
        environment    TEXT NOT NULL CHECK (environment IN ('production', 'staging')),
        hash           TEXT NOT NULL UNIQUE,
        display_prefix TEXT NOT NULL,
        created_at     TEXT NOT NULL,
        revoked_at     TEXT,
        CHECK ((plan = 'enterprise') = (per_minute IS NOT NULL AND per_day IS NOT NULL))
      );
    `,
  },
  {
    version: 3,
    name: 'create idempotency_keys',
    sql: {
      sqlite: `
      CREATE TABLE idempotency_keys (
        api_key_id      TEXT    NOT NULL,
        idempotency_key TEXT    NOT NULL,
        fingerprint     TEXT    NOT NULL,
        state           TEXT    NOT NULL CHECK (state IN ('in_flight', 'completed')),
        response_status INTEGER,
        response_body   TEXT,
        created_at      INTEGER NOT NULL,
        locked_at       INTEGER NOT NULL,
        PRIMARY KEY (api_key_id, idempotency_key)
      );
      CREATE INDEX idempotency_keys_created_at ON idempotency_keys (created_at);
    `,
      postgres: `
      CREATE TABLE idempotency_keys (
        api_key_id      TEXT    NOT NULL,
        idempotency_key TEXT    NOT NULL,
        fingerprint     TEXT    NOT NULL,
        state           TEXT    NOT NULL CHECK (state IN ('in_flight', 'completed')),
        response_status INTEGER,
        response_body   TEXT,
        created_at      BIGINT  NOT NULL,
        locked_at       BIGINT  NOT NULL,
        PRIMARY KEY (api_key_id, idempotency_key)
      );
      CREATE INDEX idempotency_keys_created_at ON idempotency_keys (created_at);
    `,
    },
  },
  {
    version: 4,
    name: 'covering index for status pages',
    sql: {
      sqlite: `
      -- GET /pets?status=…: the filter, the keyset order and every column of a Pet from one
      -- index, without a lookup in the table per row.
      CREATE INDEX pets_status_covering ON pets (status, id, name, category_id);
      DROP INDEX pets_status_id;
    `,
      // Only SQLite's status pages need it; PostgreSQL keeps pets_status_id.
      postgres: null,
    },
  },
  {
    version: 5,
    name: 'add pets.other_fields',
    sql: {
      sqlite: `
      -- The fields of an animal that have no column of their own, as one JSON object (see
      -- src/service/store/pet-record.ts): a field the contract adds is kept without a migration.
      ALTER TABLE pets ADD COLUMN other_fields TEXT CHECK (other_fields IS NULL OR json_type(other_fields) = 'object');
      -- The covering index of status pages holds them too, so a page still needs no table lookup.
      CREATE INDEX pets_status_page ON pets (status, id, name, category_id, other_fields);
      DROP INDEX pets_status_covering;
    `,
      postgres: `
      -- The fields of an animal that have no column of their own, as one JSON object (see
      -- src/service/store/pet-record.ts): a field the contract adds is kept without a migration. JSON,
      -- not JSONB, keeps the fields in the order they were sent, as SQLite does.
      ALTER TABLE pets ADD COLUMN other_fields JSON CHECK (other_fields IS NULL OR json_typeof(other_fields) = 'object');
    `,
    },
  },
  {
    version: 6,
    name: 'add idempotency_keys.claim_token',
    sql: `
      -- Which request holds an in-flight claim (src/service/store/records.ts, HeldClaim): only it may
      -- complete, renew or release the claim. Claims are short and renewed; one taken over after
      -- its instance stalled must not let that instance record a second animal. Rows written
      -- before have none: a completed one needs none, an in-flight one lapses as any other.
      ALTER TABLE idempotency_keys ADD COLUMN claim_token TEXT;
    `,
  },
];
