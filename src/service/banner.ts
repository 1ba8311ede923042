/** What the service says when it listens: the log line, and for people a banner with the development key. */
import type { Logger } from 'pino';
import { basePathsOf, listOperations, type MediaTypeObject } from 'contract-kit';
import { loadSpec, resolveRef, type OpenApiDocument } from '../contract/load-spec.js';
import { sunsetNote, type PreviousVersion } from '../contract/released-contracts.js';
import { invokedAs } from '../shared/command-line.js';
import { systemClock } from './clock.js';
import type { Config } from './config/settings.js';
import { keyPrefix } from './keys/key-format.js';
import { describeStore } from './open-store.js';
import type { ApiKeyRecord, KeyRepository } from './store/store.js';

/** A development key to show once, and the record that stores it once it was shown. */
export interface DevelopmentKey {
  key: string;
  record: ApiKeyRecord;
}

/**
 * Says where the service listens: one log line; for people (not production) a banner, and the
 * development key once. The key is stored only once the banner was written, on stdout or, with
 * stdout's reader gone (`npm start | head -1`), on stderr: a key written nowhere would be one
 * that no one has, and its presence would keep the next start from creating one.
 */
export async function announce(
  config: Config,
  logger: Logger,
  port: number,
  development: { key: DevelopmentKey | null; keys: Pick<KeyRepository, 'insertKey'> },
  earlierVersions: PreviousVersion[],
): Promise<void> {
  const where = describeStore(config);
  const limits = config.redisUrl ? `limits in Redis (${config.redisKeyPrefix})` : 'limits in memory';
  logger.info({ port, store: where, limits, environment: config.environment }, 'listening');
  // Production writes JSON lines only (the line above says it all); people get a banner.
  if (config.nodeEnv === 'production') return;
  const doc = loadSpec();
  // Where the contracts' servers put their operations (/v1), as the app serves them.
  const baseOf = (contract: OpenApiDocument) => `http://localhost:${port}${basePathsOf(contract)[0] ?? ''}`;
  const base = baseOf(doc);
  // The keys' environment is not the process's mode: `npm start` is development serving production keys.
  const server = doc.servers?.find((s) => s.description?.toLowerCase() === config.environment);
  const banner =
    `${doc.info.title} ${doc.info.version} at ${base} (NODE_ENV=${config.nodeEnv})\n` +
    earlierVersions
      .map(({ label, doc: old }) => `  and ${old.info.version} at ${baseOf(old)} (${label}${sunsetNote(old, systemClock.now())})\n`)
      .join('') +
    `  takes ${config.environment} keys only (${keyPrefix(config.environment)}…, ANIMAL_STORE_ENV)${server ? `: the keys of ${server.url}` : ''}\n` +
    `  ${where}, ${limits}\n`;
  const { key } = development;
  if (!key) return void (await show(banner));
  const auth = `-H 'Authorization: Bearer ${key.key}'`;
  const shown = await show(
    banner +
      `\nCreated a development key (Pro plan). It is shown once; keep it:\n  ${key.key}\n\n` +
      tryLines(doc, auth, base) +
      `More keys: ${invokedAs('npm run keys --', process.argv[1]?.replace(/server\.js$/, 'keys.js'))} create --plan free --name NAME\n\n`,
  );
  if (shown) await development.keys.insertKey(key.record);
}

/**
 * Writes `text` for people: on stdout, or on stderr when stdout's reader has gone (EPIPE).
 * Resolves with whether either took it.
 */
async function show(text: string): Promise<boolean> {
  if (await written(process.stdout, text)) return true;
  return written(process.stderr, `Standard output is closed: the service runs on, but its log is lost.\n${text}`);
}

function written(stream: NodeJS.WriteStream, text: string): Promise<boolean> {
  if (stream.destroyed) return Promise.resolve(false);
  return new Promise((resolve) => stream.write(text, (error) => resolve(!error)));
}

/**
 * Requests to try the service with, from the contract: its first GET without path parameters,
 * and its first POST without them whose JSON body has an example, sent with that example.
 */
function tryLines(doc: ReturnType<typeof loadSpec>, auth: string, base: string): string {
  const operations = listOperations(doc).filter((op) => !op.path.includes('{'));
  const get = operations.find((op) => op.method === 'get');
  const post = operations.find((op) => op.method === 'post');
  const json: MediaTypeObject | undefined = post?.requestBody?.content['application/json'];
  const [example] = Object.values((json?.examples as Record<string, unknown> | undefined) ?? {}).map((e) =>
    resolveRef<{ value?: unknown }>(doc, e),
  );
  const lines = [
    ...(get ? [`  curl ${auth} ${base}${get.path}`] : []),
    ...(post && example?.value !== undefined
      ? [`  curl ${auth} -H 'Content-Type: application/json' -d '${JSON.stringify(example.value)}' ${base}${post.path}`]
      : []),
  ];
  return lines.length === 0 ? '' : `Try:\n${lines.join('\n')}\n`;
}
