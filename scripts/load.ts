/** `npm run load`: sustained load on the real server, keys of every plan driven past their limits. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { failUsage, parseCommandLine } from '../src/shared/command-line.js';
import { issueKey } from '../src/service/keys/issue-key.js';
import { isPlan, PLAN_LIMITS, PLANS, type Limits, type Plan } from '../src/service/limits/plans.js';
import { PostgresStore } from '../src/service/store/postgres/postgres-store.js';
import { SqliteStore } from '../src/service/store/sqlite/sqlite-store.js';
import type { Store } from '../src/service/store/store.js';
import { driveKey, type Manner, type Tally } from './load-driver.js';
import { loadReport, mib, type LoadRun } from './load-report.js';
import { residentMemory } from './support/process-memory.js';
import { startServiceProcess, type ServiceProcess } from './support/server-process.js';
import { deleteKeysUnder } from './support/redis-keys.js';

const HELP = `Usage: npm run load [-- options]

Starts the real service (src/service/main.ts, its own process) on a throw-away SQLite store with limits
in memory, issues two keys of every plan, and drives each at several times its per-minute
limit: one key keeps sending when refused (so it gets banned), the other waits Retry-After.
Prints a progress line, then per key: plan, limit, requests sent, accepted, refused (429),
banned, 5xx, and whether it got more accepted than its limit allows; and the server's memory
(RSS from /proc) before, at its peak and after (through tsx, without npm run serve's V8 flags
and MALLOC_ARENA_MAX: npm run bench measures production's). Exits 1 when a key got more than
its limit, any request got a 5xx or no answer, or a key that waits Retry-After was banned.

Options:
  --duration D        How long to drive, as 90, 90s or 2m (default 60s).
  --rate N            Send at N times each key's per-minute limit (default 5).
  --plans LIST        Plans to drive, comma-separated (default free,pro,business,enterprise).
  --database-url URL  Run the server on this PostgreSQL (DATABASE_URL) instead of SQLite;
                      the load keys are issued there and stay.
  --redis-url URL     Count limits in this Redis (REDIS_URL), under a prefix of this run,
                      removed at its end.
  -h, --help          Show this help.

The Enterprise keys are issued with 120 a minute and 150 a day, so that the day window is
reached during a run that spans two minutes.
`;

/** Limits of the Enterprise load keys: a day window a run of a few minutes uses up. */
const ENTERPRISE_LOAD_LIMITS: Limits = { perMinute: 120, perDay: 150 };
const MANNERS: Manner[] = ['ignores-retry-after', 'honours-retry-after'];

function parseDuration(text: string): number {
  const match = /^(\d+(?:\.\d+)?)(s|m)?$/.exec(text.trim());
  if (!match) failUsage(HELP, `--duration must be like 60, 60s or 2m, got "${text}"`);
  const ms = Number(match[1]) * (match[2] === 'm' ? 60_000 : 1000);
  if (ms < 1000) failUsage(HELP, '--duration must be at least 1s');
  return ms;
}

/** What this run does, from its command line. */
interface LoadOptions {
  durationMs: number;
  rate: number;
  plans: Plan[];
  databaseUrl: string | undefined;
  redisUrl: string | undefined;
}

/** A key issued for the run, and how it is driven. */
interface LoadKey {
  plan: Plan;
  manner: Manner;
  key: string;
  limits: Limits;
}

function readOptions(): LoadOptions {
  const { values } = parseCommandLine(HELP, {
    duration: { type: 'string', default: '60s' },
    rate: { type: 'string', default: '5' },
    plans: { type: 'string', default: PLANS.join(',') },
    'database-url': { type: 'string' },
    'redis-url': { type: 'string' },
  });
  const durationMs = parseDuration(values.duration);
  const rate = Number(values.rate);
  if (!Number.isFinite(rate) || rate <= 1) failUsage(HELP, `--rate must be a number above 1, got "${values.rate}"`);
  const plans = values.plans.split(',').map((p) => p.trim());
  const unknown = plans.filter((p) => !isPlan(p));
  if (unknown.length > 0 || plans.length === 0) failUsage(HELP, `--plans takes plans among ${PLANS.join(', ')}, got "${values.plans}"`);
  return { durationMs, rate, plans: plans.filter(isPlan), databaseUrl: values['database-url'], redisUrl: values['redis-url'] };
}

/** Issues two keys of each plan, one per manner, where the server will find them. */
async function issueLoadKeys(options: LoadOptions, databasePath: string): Promise<LoadKey[]> {
  const keys: LoadKey[] = [];
  const store: Store = options.databaseUrl ? await PostgresStore.open({ url: options.databaseUrl }) : SqliteStore.open(databasePath);
  try {
    for (const plan of options.plans) {
      const limits = plan === 'enterprise' ? ENTERPRISE_LOAD_LIMITS : PLAN_LIMITS[plan];
      for (const manner of MANNERS) {
        const extra = plan === 'enterprise' ? limits : {};
        const { key } = await issueKey(store, { name: `load ${plan} ${manner}`, plan, environment: 'production', ...extra }, new Date());
        keys.push({ plan, manner, key, limits });
      }
    }
  } finally {
    await store.close();
  }
  return keys;
}

/** The server's environment: quiet, and on PostgreSQL and Redis when asked. */
function serverEnv(options: LoadOptions): Record<string, string> {
  const env: Record<string, string> = { LOG_LEVEL: 'error' };
  if (options.databaseUrl) env.DATABASE_URL = options.databaseUrl;
  if (options.redisUrl) {
    Object.assign(env, { REDIS_URL: options.redisUrl, REDIS_KEY_PREFIX: `animal-store-load-${process.pid}-${Date.now()}` });
  }
  return env;
}

/**
 * Drives every key to the end of the run, printing progress (a line that updates itself on a
 * terminal, else every ten seconds) and sampling the server's memory once a second.
 */
async function driveAll(server: ServiceProcess, keys: LoadKey[], options: LoadOptions): Promise<LoadRun> {
  const pid = server.child.pid!;
  // A few requests first, so "before" is a server that has answered (code loaded, caches warm).
  for (let i = 0; i < 20; i++) await fetch(`${server.baseUrl}/pets`).then((r) => r.text());
  const before = residentMemory(pid);
  const startedAt = Date.now();
  const endAt = startedAt + options.durationMs;
  const drivers = keys.map((k) => driveKey({ ...k, baseUrl: server.baseUrl, rate: options.rate, endAt }));
  const tallies = drivers.map((d) => d.tally);
  const samples: number[] = [];
  let ticks = 0;
  const progress = setInterval(() => {
    ticks++;
    const memory = residentMemory(pid);
    if (memory) samples.push(memory.rssMiB);
    const sum = (count: (t: Tally) => number) => tallies.reduce((n, t) => n + count(t), 0);
    const line =
      `  ${((Date.now() - startedAt) / 1000).toFixed(0).padStart(4)} s / ${options.durationMs / 1000} s   ${sum((t) => t.sent)} sent, ` +
      `${sum((t) => t.accepted)} accepted, ${sum((t) => t.rateLimited + t.banned)} refused, ${sum((t) => t.serverErrors)} 5xx   server RSS ${mib(memory)}`;
    if (process.stdout.isTTY) process.stdout.write(`\r${line}`);
    else if (ticks % 10 === 0) process.stdout.write(`${line}\n`);
  }, 1000);
  await Promise.all(drivers.map((d) => d.done));
  clearInterval(progress);
  if (process.stdout.isTTY) process.stdout.write('\n');
  await new Promise((resolve) => setTimeout(resolve, 1000));
  return { tallies, startedAt, samples, before, after: residentMemory(pid) };
}

async function main(): Promise<void> {
  const options = readOptions();
  const dir = mkdtempSync(join(tmpdir(), 'animal-store-load-'));
  const databasePath = join(dir, 'load.db');
  const keys = await issueLoadKeys(options, databasePath);
  const env = serverEnv(options);
  const server = await startServiceProcess(databasePath, env);
  try {
    process.stdout.write(
      `Server (pid ${server.child.pid}) at ${server.baseUrl}, ${options.databaseUrl ? 'PostgreSQL' : `SQLite in ${dir}`}, limits in ${options.redisUrl ? 'Redis' : 'memory'}.\n` +
        `Driving ${keys.length} keys at ${options.rate}x their per-minute limit for ${options.durationMs / 1000} s.\n`,
    );
    const { text, ok } = loadReport(await driveAll(server, keys, options));
    process.stdout.write(text);
    process.exitCode = ok ? 0 : 1;
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
    if (options.redisUrl) await deleteKeysUnder(options.redisUrl, env.REDIS_KEY_PREFIX!);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`load failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
