/** `npm run keys`: issue, list and revoke API keys in the service's store. */
import { failUsage, invokedAs, parseCommandLine, wholeNumberOption } from '../../shared/command-line.js';
import { tableLines } from '../../shared/text-table.js';
import { escapeUnsafe } from '../../shared/visible-text.js';
import { ConfigError } from '../config/config-error.js';
import { loadConfig } from '../config/load-config.js';
import { isPlan, PLAN_LIMITS, PLANS } from '../limits/plans.js';
import { openStore } from '../open-store.js';
import type { ApiKeyRecord, Store } from '../store/store.js';
import { issueKey, KEY_NAME_MAX_LENGTH } from './issue-key.js';
import { KeyRequestError, type KeyRequestProblem } from './key-request-error.js';
import type { KeyEnvironment } from './key-format.js';

/** `npm run keys --`, or `node keys.js` in the release. */
const KEYS = invokedAs('npm run keys --');

const HELP = `Usage: ${KEYS} <command> [options]

Issues, lists and revokes API keys in the store the service uses (DATABASE_URL, else
DATABASE_PATH).

Commands:
  create   Issue a key; it is printed once and only its hash is kept.
  list     List keys (never the keys themselves).
  revoke   Revoke a key; the service refuses it from the next request on.

Run ${KEYS} <command> --help for a command's options.
`;

const CREATE_HELP = `Usage: ${KEYS} create --plan PLAN --name TEXT [--env ENV] [--per-minute N --per-day N]

Issues an API key and prints it once. Only its hash is stored: a lost key cannot be shown again.

Options:
  --plan PLAN       ${PLANS.join(' | ')} (free ${PLAN_LIMITS.free.perMinute}/min ${PLAN_LIMITS.free.perDay}/day, pro ${PLAN_LIMITS.pro.perMinute}/${PLAN_LIMITS.pro.perDay}, business ${PLAN_LIMITS.business.perMinute}/${PLAN_LIMITS.business.perDay}).
  --name TEXT       Who or what the key is for (1 to ${KEY_NAME_MAX_LENGTH} characters).
  --env ENV         production | staging (default: ANIMAL_STORE_ENV, else production).
  --per-minute N    Enterprise only: requests per minute.
  --per-day N       Enterprise only: requests per day.
  -h, --help        Show this help.
`;

const LIST_HELP = `Usage: ${KEYS} list [--json]

Lists every key: id, name, plan, limits, environment, the first characters of the key, when it
was created and whether it is revoked.

Options:
  --json        One JSON object per line instead of a table.
  -h, --help    Show this help.
`;

const REVOKE_HELP = `Usage: ${KEYS} revoke ID

Revokes the key with this id (from ${KEYS} list). The service refuses it at once.

Options:
  -h, --help    Show this help.
`;

/** What issueKey refuses, said with this command's options. */
const IN_OPTIONS: Record<KeyRequestProblem, (plan: string) => string> = {
  name_length: () => `--name must be 1 to ${KEY_NAME_MAX_LENGTH} characters`,
  name_characters: () => '--name may not hold control characters (a newline, ESC…), nor only invisible ones',
  limits_missing: () => 'an enterprise key needs --per-minute and --per-day',
  limits_order: () => '--per-minute cannot be larger than --per-day',
  limits_not_allowed: (plan) => `--per-minute and --per-day are for enterprise keys; the ${plan} plan has fixed limits`,
};

/** A limit option's value: a whole number of at least 1, or undefined when the option is absent. */
function limitOption(name: 'per-minute' | 'per-day', raw: string | undefined): number | undefined {
  return raw === undefined ? undefined : wholeNumberOption(CREATE_HELP, name, raw, 1);
}

async function create(store: Store, args: string[], defaultEnv: KeyEnvironment): Promise<void> {
  const { values } = parseCommandLine(
    CREATE_HELP,
    {
      plan: { type: 'string' },
      name: { type: 'string' },
      env: { type: 'string' },
      'per-minute': { type: 'string' },
      'per-day': { type: 'string' },
    },
    { args },
  );
  if (!values.plan || !isPlan(values.plan))
    failUsage(CREATE_HELP, `--plan must be one of ${PLANS.join(', ')}${values.plan ? `, got "${values.plan}"` : ''}`);
  if (values.name === undefined) failUsage(CREATE_HELP, '--name is required');
  const env = values.env ?? defaultEnv;
  if (env !== 'production' && env !== 'staging') failUsage(CREATE_HELP, `--env must be production or staging, got "${env}"`);
  let issued;
  try {
    issued = await issueKey(
      store,
      {
        name: values.name,
        plan: values.plan,
        environment: env,
        perMinute: limitOption('per-minute', values['per-minute']),
        perDay: limitOption('per-day', values['per-day']),
      },
      new Date(),
    );
  } catch (error) {
    if (error instanceof KeyRequestError) failUsage(CREATE_HELP, IN_OPTIONS[error.problem](values.plan));
    throw error;
  }
  const { record, key } = issued;
  process.stdout.write(
    `Created key ${record.id} "${escapeUnsafe(record.name)}" (${record.plan}, ${record.environment}${record.plan === 'enterprise' ? `, ${record.perMinute}/min ${record.perDay}/day` : ''}).\n` +
      `This is the only time the key is shown; store it now:\n\n${key}\n`,
  );
}

function limitsText(k: ApiKeyRecord): string {
  const limits = k.plan === 'enterprise' ? { perMinute: k.perMinute, perDay: k.perDay } : PLAN_LIMITS[k.plan];
  return `${limits.perMinute}/min ${limits.perDay}/day`;
}

async function list(store: Store, args: string[]): Promise<void> {
  const { values } = parseCommandLine(LIST_HELP, { json: { type: 'boolean', default: false } }, { args });
  const keys = await store.listKeys();
  if (values.json) {
    // Never the hash: what is listed may be pasted anywhere.
    for (const k of keys)
      process.stdout.write(`${escapeUnsafe(JSON.stringify(k, (field, value: unknown) => (field === 'hash' ? undefined : value)))}\n`);
    return;
  }
  if (keys.length === 0) {
    process.stdout.write(`No keys. Issue one with: ${KEYS} create --plan free --name NAME\n`);
    return;
  }
  // A name stored before names were checked is shown escaped: it can neither drive the terminal nor forge a row.
  const rows = [
    ['ID', 'NAME', 'PLAN', 'LIMITS', 'ENV', 'KEY STARTS', 'CREATED', 'REVOKED'],
    ...keys.map((k) => [
      k.id,
      escapeUnsafe(k.name),
      k.plan,
      limitsText(k),
      k.environment,
      `${k.displayPrefix}…`,
      k.createdAt,
      k.revokedAt ?? '-',
    ]),
  ];
  for (const line of tableLines(rows)) process.stdout.write(`${line}\n`);
}

async function revoke(store: Store, args: string[]): Promise<void> {
  const { positionals } = parseCommandLine(REVOKE_HELP, {}, { args, allowPositionals: true });
  if (positionals.length !== 1) failUsage(REVOKE_HELP, 'revoke takes exactly one key id');
  const id = positionals[0]!;
  const before = (await store.listKeys()).find((k) => k.id === id);
  if (!before) {
    process.stderr.write(`No key with id ${escapeUnsafe(id)}. See ${KEYS} list.\n`);
    process.exit(1);
  }
  const revoked = await store.revokeKey(id, new Date());
  process.stdout.write(
    before.revokedAt
      ? `Key ${id} was already revoked on ${before.revokedAt}.\n`
      : `Revoked key ${id} "${escapeUnsafe(revoked!.name)}" at ${revoked!.revokedAt}.\n`,
  );
}

async function main(): Promise<void> {
  const [command, ...rest] = process.argv.slice(2);
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(HELP);
    if (command === undefined) process.exit(2);
    return;
  }
  const commands = { create, list, revoke } as const;
  if (!(command in commands)) failUsage(HELP, `Unknown command "${command}".`);
  // Help needs no database; parse it before opening one.
  if (rest.includes('--help') || rest.includes('-h')) {
    process.stdout.write({ create: CREATE_HELP, list: LIST_HELP, revoke: REVOKE_HELP }[command as keyof typeof commands]);
    return;
  }
  const config = loadConfig();
  const store = await openStore(config);
  try {
    if (command === 'create') await create(store, rest, config.environment);
    else await commands[command as 'list' | 'revoke'](store, rest);
  } finally {
    await store.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(error instanceof ConfigError ? `${error.message}\n` : `keys failed: ${(error as Error).message}\n`);
  process.exit(1);
});
