import type { Migration } from '../sqlite/migrations.js';

/**
 * The PostgreSQL schema, as migrations with the same versions as SQLite's (version 4 is an
 * index only SQLite needs). Append only.
 */
export const POSTGRES_MIGRATIONS: Migration[] = [
  {
    version: 1,
    name: 'create pets',
    sql: `
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
    sql: `
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
  {
    version: 5,
    name: 'add pets.other_fields',
    sql: `
      -- The fields of an animal that have no column of their own, as one JSON object (see
      -- src/service/store/pet-record.ts): a field the contract adds is kept without a migration. JSON,
      -- not JSONB, keeps the fields in the order they were sent, as SQLite does.
      ALTER TABLE pets ADD COLUMN other_fields JSON CHECK (other_fields IS NULL OR json_typeof(other_fields) = 'object');
    `,
  },
];
