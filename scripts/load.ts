/** `npm run load`: sustained load on the real server, keys of every plan driven past their limits. */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { failUsage, parseCommandLine } from '../src/shared/command-line.js';
import { issueKey } from '../src/service/keys/issue-key.js';
import { isPlan, PLAN_LIMITS, PLANS, type Limits, type Plan } from '../src/service/limits/plans.js';
import { PostgresStore } from '../src/service/store/postgres/postgres-store.js';
import { SqliteStore } from '../src/service/store/sqlite/sqlite-store.js';
import type { Store } from '../src/service/store/store.js';
import { startServerProcess } from '../test/support/server-process.js';
import { allowedFor, driveKey, type Manner, type Tally } from './load-driver.js';

const HELP = `Usage: npm run load [-- options]

Starts the real service (src/service/main.ts, its own process) on a throw-away SQLite store with limits
in memory, issues two keys of every plan, and drives each at several times its per-minute
limit: one key keeps sending when refused (so it gets banned), the other waits Retry-After.
Prints a progress line, then per key: plan, limit, requests sent, accepted, refused (429),
banned, 5xx, and whether it got more accepted than its limit allows; and the server's memory
(RSS from /proc) before, at its peak and after. Exits 1 when a key got more than its limit,
any request got a 5xx or no answer, or a key that waits Retry-After was banned.

Options:
  --duration D        How long to drive, as 90, 90s or 2m (default 60s).
  --rate N            Send at N times each key's per-minute limit (default 5).
  --plans LIST        Plans to drive, comma-separated (default free,pro,business,enterprise).
  --database-url URL  Run the server on this PostgreSQL (DATABASE_URL) instead of SQLite;
                      the load keys are issued there and stay.
  --redis-url URL     Count limits in this Redis (REDIS_URL), under a prefix of this run.
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

/** Resident memory of a process, in MiB, from /proc: now (VmRSS) and at its peak (VmHWM). */
function memoryOf(pid: number): { rss: number; peak: number } | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kib = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
    return { rss: kib('VmRSS') / 1024, peak: kib('VmHWM') / 1024 };
  } catch {
    return null;
  }
}

const mib = (m: { rss: number } | null) => (m ? `${m.rss.toFixed(1)} MiB` : 'n/a');

async function openKeyStore(databaseUrl: string | undefined, databasePath: string): Promise<Store> {
  return databaseUrl ? PostgresStore.open({ url: databaseUrl }) : SqliteStore.open(databasePath);
}

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) => r.map((cell, i) => (i < 2 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ')).join('\n');
}

async function main(): Promise<void> {
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
  const databaseUrl = values['database-url'];
  const redisUrl = values['redis-url'];

  const dir = mkdtempSync(join(tmpdir(), 'animal-store-load-'));
  const databasePath = join(dir, 'load.db');
  const keys: { plan: Plan; manner: Manner; key: string; limits: Limits }[] = [];
  const store = await openKeyStore(databaseUrl, databasePath);
  try {
    for (const plan of plans.filter(isPlan)) {
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

  const env: Record<string, string> = { LOG_LEVEL: 'error' };
  if (databaseUrl) env.DATABASE_URL = databaseUrl;
  if (redisUrl) Object.assign(env, { REDIS_URL: redisUrl, REDIS_KEY_PREFIX: `animal-store-load-${process.pid}-${Date.now()}` });
  const server = await startServerProcess(databasePath, env);
  const pid = server.child.pid!;
  let exitCode = 0;
  try {
    process.stdout.write(
      `Server (pid ${pid}) at ${server.baseUrl}, ${databaseUrl ? 'PostgreSQL' : `SQLite in ${dir}`}, limits in ${redisUrl ? 'Redis' : 'memory'}.\n` +
        `Driving ${keys.length} keys at ${rate}x their per-minute limit for ${durationMs / 1000} s.\n`,
    );
    // A few requests first, so "before" is a server that has answered (code loaded, caches warm).
    for (let i = 0; i < 20; i++) await fetch(`${server.baseUrl}/pets`).then((r) => r.text());
    const before = memoryOf(pid);
    const startedAt = Date.now();
    const endAt = startedAt + durationMs;
    const samples: number[] = [];
    const drivers = keys.map(({ plan, manner, key, limits }) =>
      driveKey({ baseUrl: server.baseUrl, key, plan, manner, limits, rate, endAt }),
    );
    const live = drivers.map((d) => d.tally);
    let ticks = 0;
    const progress = setInterval(() => {
      ticks++;
      const m = memoryOf(pid);
      if (m) samples.push(m.rss);
      const sum = (f: (t: Tally) => number) => live.reduce((n, t) => n + f(t), 0);
      const line =
        `  ${((Date.now() - startedAt) / 1000).toFixed(0).padStart(4)} s / ${durationMs / 1000} s   ${sum((t) => t.sent)} sent, ` +
        `${sum((t) => t.accepted)} accepted, ${sum((t) => t.rateLimited + t.banned)} refused, ${sum((t) => t.serverErrors)} 5xx   server RSS ${mib(m)}`;
      if (process.stdout.isTTY) process.stdout.write(`\r${line}`);
      else if (ticks % 10 === 0) process.stdout.write(`${line}\n`);
    }, 1000);
    await Promise.all(drivers.map((d) => d.done));
    clearInterval(progress);
    if (process.stdout.isTTY) process.stdout.write('\n');
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const after = memoryOf(pid);

    const rows = [['plan', 'client', 'limit', 'allowed', 'sent', 'accepted', '429', 'banned', '5xx', 'no answer', 'verdict']];
    for (const t of live) {
      const allowed = allowedFor(t);
      const problems = [
        t.accepted > allowed ? 'ABOVE LIMIT' : '',
        t.serverErrors > 0 ? '5xx' : '',
        t.networkErrors > 0 ? 'NO ANSWER' : '',
        t.manner === 'honours-retry-after' && t.banned > 0 ? 'BANNED THOUGH POLITE' : '',
      ].filter(Boolean);
      if (problems.length > 0) exitCode = 1;
      rows.push([
        t.plan,
        t.manner,
        `${t.limits.perMinute}/min ${t.limits.perDay}/day`,
        String(allowed),
        String(t.sent),
        String(t.accepted),
        String(t.rateLimited),
        String(t.banned),
        String(t.serverErrors),
        String(t.networkErrors),
        problems.length > 0 ? problems.join(', ') : 'ok: accepted <= allowed',
      ]);
    }
    const total = (f: (t: Tally) => number) => live.reduce((n, t) => n + f(t), 0);
    const seconds = (Math.max(...live.map((t) => t.lastAnsweredAt)) - startedAt) / 1000;
    const quarter = (q: number) => samples[Math.min(samples.length - 1, Math.floor((samples.length * q) / 4))];
    process.stdout.write(
      `\n${table(rows)}\n\n` +
        `${total((t) => t.sent)} requests in ${seconds.toFixed(1)} s (${(total((t) => t.sent) / seconds).toFixed(0)}/s), ` +
        `${total((t) => t.accepted)} accepted, ${total((t) => t.rateLimited)} rate limited, ${total((t) => t.banned)} banned, ` +
        `${total((t) => t.serverErrors)} 5xx, ${total((t) => t.networkErrors)} without an answer.\n` +
        `"allowed" is the limit times the fixed windows (minutes, days) the key's requests spanned.\n` +
        `Server memory (RSS): before ${mib(before)}, during ${[1, 2, 3].map((q) => `${quarter(q)?.toFixed(1) ?? 'n/a'}`).join(' / ')} MiB ` +
        `(at 1/4, 1/2, 3/4), after ${mib(after)}, peak ${after ? `${after.peak.toFixed(1)} MiB` : 'n/a'}.\n` +
        (exitCode === 0 ? 'OK: no key above its limit, no 5xx, every request answered.\n' : 'FAILED: see the verdicts above.\n'),
    );
  } finally {
    server.child.kill('SIGTERM');
    await server.exited;
    rmSync(dir, { recursive: true, force: true });
  }
  process.exitCode = exitCode;
}

main().catch((error: unknown) => {
  process.stderr.write(`load failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
