import { createQueryId, type CompiledQuery, type Kysely } from 'kysely';
import type { ReadCaches } from './read-cache.js';
import type { Tables } from './tables.js';

/**
 * A statement compiled once, and the name of the value each of its placeholders takes. Kysely
 * builds and compiles a query on every call, which costs about as much as running it on SQLite;
 * the store compiles the statements it runs most (a page, an INSERT) once per form.
 */
export interface CompiledOnce<P extends string, R = unknown> {
  compiled: CompiledQuery<R>;
  parameters: P[];
}

/**
 * `compiled`, a statement compiled with the distinct values `sentinels` as its parameters, and
 * which of them each parameter is: later runs give it the values of those names there.
 */
export function placeholders<P extends string, R>(compiled: CompiledQuery<R>, sentinels: Record<P, unknown>): CompiledOnce<P, R> {
  const names = Object.keys(sentinels) as P[];
  const parameters = compiled.parameters.map((value) => {
    const name = names.find((n) => sentinels[n] === value);
    if (!name) throw new Error(`a statement compiled once has a parameter it was not given: ${String(value)}`);
    return name;
  });
  return { compiled, parameters };
}

/**
 * Runs a statement compiled once with `values`. Kysely's plugins see a query when it is compiled,
 * so the read caches' plugin is shown each run here, as it would be shown a query built for it:
 * a write still drops what it may change.
 */
export function runCompiled<P extends string, R>(
  db: Kysely<Tables>,
  caches: ReadCaches | undefined,
  { compiled, parameters }: CompiledOnce<P, R>,
  values: Record<P, unknown>,
) {
  const query: CompiledQuery<R> = { ...compiled, parameters: parameters.map((name) => values[name]), queryId: createQueryId() };
  caches?.plugin.transformQuery({ node: query.query, queryId: query.queryId });
  return db.executeQuery(query);
}
