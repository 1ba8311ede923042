/** The servers `npm run bench` measures, the stores behind them, and what it asks each. */
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { SETTINGS } from '../src/service/config/settings.js';
import { encodeCursor } from '../src/service/http/pagination.js';
import { PACKAGE_ROOT } from '../src/shared/package-root.js';
import { startServer, type ServerProcess, type ServerSpec } from '../scripts/support/server-process.js';
import { firstAnimals, seedStore } from './animals.js';
import { syntheticPath } from './synthetic-contract.js';
import { benchServer, serveCommand, type ServeCommand } from './processes.js';
import { progress } from './progress.js';
import { CONNECTIONS } from './targets.js';
import type { LoadSpec } from './wrk.js';

/** Animals in the small store (the large one's count is an option). */
export const SMALL = 10_000;
const LIST_PATH = '/v1/pets?limit=20';
const NEW_PET = JSON.stringify({ name: 'Rex', categoryId: 3 });
/** Distinct pages each list-size measurement goes through, one per request, in turn. */
const DEEP_PAGES = 10_000;
const DEEP_PAGE_LABEL = `/v1/pets?limit=20&status=pending&cursor=… (${DEEP_PAGES.toLocaleString('en-US')} pages)`;
/** The sizes of the synthetic contracts the kit and its stock peer are measured on. */
const SCALES = [4, 40, 400] as const;
/** The key the peers take (they check its form only). */
const PEER_AUTH = { Authorization: 'Bearer as_prod_peer' };

const count = (n: number) => n.toLocaleString('en-US');
const auth = (key: string) => ({ Authorization: `Bearer ${key}` });

/**
 * Filtered pages (status and cursor) from all over a store of `animals`: the keyset query that a
 * large table would slow down first. They are many, so the server's page cache (which keeps at
 * most 1,000) does not answer them: this measures the store.
 */
function deepPagePaths(animals: number): string[] {
  const paths: string[] = [];
  // A stride coprime with the count visits every slot once, in an order without locality.
  for (let i = 0, slot = 0; i < DEEP_PAGES; i++, slot = (slot + 7_919) % DEEP_PAGES) {
    const afterId = 1 + Math.floor((slot * (animals - 100)) / DEEP_PAGES);
    paths.push(`/v1/pets?limit=20&status=pending&cursor=${encodeCursor(afterId)}`);
  }
  return paths;
}

/** A throw-away SQLite file the bench seeded, and a key on it. */
export interface SeededStore {
  path: string;
  key: string;
  animals: number;
}

/** The bench's three stores: the full stack's, and the small and large ones of the list measurements. */
export interface Stores {
  main: SeededStore;
  small: SeededStore;
  large: SeededStore;
  seedSeconds: number;
}

/** Seeds the three stores in `dir`. */
export async function seedStores(dir: string, large: number): Promise<Stores> {
  progress(`seeding ${count(SMALL)} and ${count(large)} animals into ${dir}`);
  const started = performance.now();
  const seeded = async (name: string, animals: number): Promise<SeededStore> => {
    const path = join(dir, name);
    return { path, key: await seedStore(path, animals), animals };
  };
  const main = await seeded('main.db', SMALL);
  const small = await seeded('small.db', SMALL);
  const big = await seeded('large.db', large);
  return { main, small, large: big, seedSeconds: (performance.now() - started) / 1000 };
}

/**
 * The service on `store` in production mode (or `nodeEnv`), logging at its default level: by
 * default as `npm run serve` runs it (compiled), else with `command`.
 */
function fullStack(name: string, store: SeededStore, command: ServeCommand = serveCommand(), nodeEnv = 'production'): ServerSpec {
  return {
    name,
    args: command.args,
    env: {
      ...command.env,
      DATABASE_PATH: store.path,
      NODE_ENV: nodeEnv,
      ANIMAL_STORE_ENV: 'production',
      LOG_LEVEL: SETTINGS.logLevel.default,
      REDIS_URL: '',
      DATABASE_URL: '',
    },
    probePath: LIST_PATH,
    probeHeaders: auth(store.key),
  };
}

/** The release (`npm run release`) as the Dockerfile runs it: release/server.js with the serve script's variables and V8 flags. */
export function release(store: SeededStore): ServerSpec {
  const { env, args } = serveCommand();
  return fullStack('release (start time)', store, { env, args: [...args.slice(0, -1), join(PACKAGE_ROOT, 'release', 'server.js')] });
}

/** A server of bench/servers/, asked the list with `probeHeaders`. */
const baselineSpec = (
  name: string,
  file: string,
  probeHeaders?: Record<string, string>,
  env: Record<string, string> = {},
  probePath = LIST_PATH,
): ServerSpec => ({ name, ...benchServer(file, env), probePath, probeHeaders });

/** A server of bench/servers/ on the synthetic contract of `paths` paths (synthetic-contract.ts). */
export const scaledSpec = (name: string, file: string, paths: number): ServerSpec =>
  baselineSpec(`${name}, ${paths} paths`, file, undefined, { PATHS: String(paths) }, syntheticPath(paths));

/** The baselines and the peers, each answering the list of the bench's 20 animals (firstAnimals). */
export const PEERS = {
  raw: baselineSpec('raw node:http', 'raw-http.ts'),
  bare: baselineSpec('bare Express 5', 'bare-express.ts'),
  eov: baselineSpec('Express 5 + express-openapi-validator', 'express-openapi-validator.ts', PEER_AUTH),
  backend: baselineSpec('openapi-backend (Express 5)', 'openapi-backend.ts', PEER_AUTH),
  glue: baselineSpec('fastify 5 + fastify-openapi-glue', 'fastify-openapi-glue.ts', PEER_AUTH),
};

/** Starts every server of the bench, each in its own process; `started` collects them as they start, for stopping. */
export async function startLineup(stores: Stores, started: ServerProcess[]) {
  const start = async (spec: ServerSpec) => {
    progress(`starting ${spec.name}`);
    const server = await startServer(spec);
    started.push(server);
    return server;
  };
  const scaled = (name: string, file: string) => Promise.all(SCALES.map((paths) => start(scaledSpec(name, file, paths))));
  return {
    raw: await start(PEERS.raw),
    bare: await start(PEERS.bare),
    eov: await start(PEERS.eov),
    backend: await start(PEERS.backend),
    glue: await start(PEERS.glue),
    kit: await scaled('contract-kit', 'contract-kit.ts'),
    eovScaled: await scaled('Express 5 + express-openapi-validator', 'express-openapi-validator-synthetic.ts'),
    full: await start(fullStack('full stack', stores.main)),
    // What a developer first meets: npm start, from the sources through tsx, in development.
    dev: await start(fullStack('full stack as npm start runs it', stores.main, serveCommand('start'), 'development')),
    small: await start(fullStack(`full stack, ${count(SMALL)} animals`, stores.small)),
    big: await start(fullStack(`full stack, ${count(stores.large.animals)} animals`, stores.large)),
  };
}

/** The servers of one bench run. */
type Lineup = Awaited<ReturnType<typeof startLineup>>;

/** The baselines must serve what the full stack serves, or the comparison means nothing. */
export async function checkSameAnimals(plan: Step[]): Promise<void> {
  for (const { server, spec, path } of plan.filter((step) => step.method === 'GET' && !step.path.includes('cursor'))) {
    const body: unknown = await (await fetch(spec.url, { headers: spec.headers })).json();
    if (!isDeepStrictEqual(body, firstAnimals(20))) throw new Error(`${server.name} does not answer ${path} with the bench's 20 animals`);
  }
}

/** One measurement of a round: a request on a server, under load. */
export interface Step {
  id: string;
  server: ServerProcess;
  method: 'GET' | 'POST';
  /** The request as the table names it. */
  path: string;
  /** The load, but for its duration, which each measurement gives. */
  spec: Omit<LoadSpec, 'durationSeconds'>;
}

/** Every measurement of a round, in the order of the table. */
export function measurementPlan(lineup: Lineup, stores: Stores): Step[] {
  const load = (server: ServerProcess, path: string, extra: Partial<LoadSpec> = {}): Step['spec'] => ({
    url: `${server.origin}${path}`,
    connections: CONNECTIONS,
    ...extra,
  });
  const list = (id: string, server: ServerProcess, headers?: Record<string, string>): Step => ({
    id,
    server,
    method: 'GET',
    path: LIST_PATH,
    spec: load(server, LIST_PATH, headers && { headers }),
  });
  const deepPages = (id: string, server: ServerProcess, store: SeededStore): Step => ({
    id,
    server,
    method: 'GET',
    path: DEEP_PAGE_LABEL,
    spec: load(server, LIST_PATH, { headers: auth(store.key), paths: deepPagePaths(store.animals) }),
  });
  const scale = (id: string, server: ServerProcess, paths: number): Step => ({
    id,
    server,
    method: 'GET',
    path: syntheticPath(paths),
    spec: load(server, syntheticPath(paths)),
  });
  const post = { ...auth(stores.main.key), 'Content-Type': 'application/json' };
  return [
    list('raw_get', lineup.raw),
    list('express_get', lineup.bare),
    list('eov_get', lineup.eov, PEER_AUTH),
    list('backend_get', lineup.backend, PEER_AUTH),
    list('glue_get', lineup.glue, PEER_AUTH),
    list('full_get', lineup.full, auth(stores.main.key)),
    list('dev_get', lineup.dev, auth(stores.main.key)),
    {
      id: 'full_post',
      server: lineup.full,
      method: 'POST',
      path: '/v1/pets',
      spec: load(lineup.full, '/v1/pets', { method: 'POST', headers: post, body: NEW_PET }),
    },
    deepPages('list_small', lineup.small, stores.small),
    deepPages('list_large', lineup.big, stores.large),
    ...SCALES.flatMap((paths, i) => [scale(`kit_${paths}`, lineup.kit[i]!, paths), scale(`eov_${paths}`, lineup.eovScaled[i]!, paths)]),
  ];
}
