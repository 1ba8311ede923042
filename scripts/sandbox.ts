/** `npm run sandbox`: the real server on a throw-away store, seeded, with a test key per plan. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseCommandLine, portOption } from '../src/shared/command-line.js';
import { tableLines } from '../src/shared/text-table.js';
import { systemClock } from '../src/service/clock.js';
import { anonymousLimitsOf, banPolicyOf } from '../src/service/config/load-config.js';
import { defaultConfig } from '../src/service/config/settings.js';
import { issueKey } from '../src/service/keys/issue-key.js';
import { RateLimiter } from '../src/service/limits/limiter.js';
import { memoryCounters } from '../src/service/limits/memory-counters.js';
import { PLANS, type Limits, type Plan } from '../src/service/limits/plans.js';
import { animalsFromExamples } from './support/sandbox-seed.js';
import { LOCAL_ORIGINS } from '../src/service/allowed-origins.js';
import { serviceLog } from '../src/service/service-log.js';
import { stopOnSignals } from 'contract-kit';
import { startService } from '../src/service/start-service.js';
import { basePathsOf } from 'contract-kit';
import { loadSpec } from '../src/contract/load-spec.js';
import { SqliteStore } from '../src/service/store/sqlite/sqlite-store.js';

const HELP = `Usage: npm run sandbox [-- --port N]

Runs the real Animal Store server (validation, keys, limits, bans, pagination) on a throw-away
SQLite store, seeded with the animals of the contract's examples, and prints a test key for
each plan. The store is deleted when the sandbox stops (Ctrl+C, SIGTERM, SIGHUP).

Options:
  --port N      Port to listen on (default 3030; 0 picks a free one).
  -h, --help    Show this help.
`;

/** The Enterprise sandbox key is small on purpose: a 429 is three requests away. */
const ENTERPRISE_SANDBOX_LIMITS: Limits = { perMinute: 3, perDay: 100 };

async function main(): Promise<void> {
  const { values } = parseCommandLine(HELP, { port: { type: 'string', default: '3030' } });
  const port = portOption(HELP, values.port);

  const dir = mkdtempSync(join(tmpdir(), 'animal-store-sandbox-'));
  const store = SqliteStore.open(join(dir, 'sandbox.db'));
  const spec = loadSpec();
  const animals = animalsFromExamples(spec);
  for (const pet of animals) await store.createPet(pet);
  const keys: [Plan, string][] = [];
  for (const plan of PLANS) {
    const limits = plan === 'enterprise' ? ENTERPRISE_SANDBOX_LIMITS : {};
    keys.push([plan, (await issueKey(store, { name: `sandbox ${plan}`, plan, environment: 'production', ...limits }, new Date())).key]);
  }

  // The service's defaults, whatever the environment says: the sandbox reads no configuration.
  const defaults = defaultConfig();
  const limiter = new RateLimiter(memoryCounters(defaults.limiterMaxEntries), systemClock, banPolicyOf(defaults));
  // Its end cannot hang on a stdout gone away, as the service's cannot.
  const log = serviceLog('warn');
  // Pages served from any local port (a Vite or webpack dev server) may call it from a browser.
  const service = await startService({
    store,
    limiter,
    clock: systemClock,
    logger: log.logger,
    environment: 'production',
    anonymousLimits: anonymousLimitsOf(defaults),
    corsOrigins: LOCAL_ORIGINS,
    port,
    host: '127.0.0.1',
    alsoClose: [() => rmSync(dir, { recursive: true, force: true })],
  }).catch((error: NodeJS.ErrnoException) => {
    throw error.code === 'EADDRINUSE' ? new Error(`Port ${port} is in use; pick another with --port.`) : error;
  });
  // Before it says where it is: whoever reads that may stop it at once. SIGHUP too: the terminal
  // it runs in may close. Its store goes with it, whatever stops it.
  stopOnSignals(service, { signals: ['SIGTERM', 'SIGINT', 'SIGHUP'], exit: log.exit });
  // Under the contract's first server path (/v1), as the service serves it.
  const base = `${service.origin}${basePathsOf(loadSpec())[0]}`;
  process.stdout.write(
    `Animal Store sandbox at ${base}\n` +
      `Throw-away SQLite store in ${dir}, deleted on exit; seeded with ${animals.length} animals from the contract's examples.\n\n` +
      'Test keys:\n' +
      tableLines(
        keys.map(([plan, key]) => [
          plan,
          `${key}${plan === 'enterprise' ? `  (${ENTERPRISE_SANDBOX_LIMITS.perMinute}/min: a 429 on the 4th request)` : ''}`,
        ]),
        { indent: '  ' },
      ).join('\n') +
      `\n\nTry:\n  curl -H 'Authorization: Bearer ${keys[0]![1]}' ${base}/pets\n` +
      `Docs: ${service.origin}/docs    Press Ctrl+C to stop.\n`,
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`sandbox failed: ${(error as Error).message}\n`);
  process.exit(1);
});
