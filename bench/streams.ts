/**
 * The bench's stream lines: contract-kit serving server-sent events and JSON Lines
 * (servers/streams.ts), in its own process. A thousand clients hold the event feed open: the
 * server's resident memory with them, less before, per open stream, and how many events a second
 * it delivers to them all; then one client reads a JSON Lines export of EXPORTED items: items a
 * second, each checked against its itemSchema and framed.
 */
import { request, type IncomingMessage } from 'node:http';
import { startServer } from '../scripts/support/server-process.js';
import { benchServer } from './processes.js';
import { progress } from './progress.js';

/** Clients holding the event feed open at once. */
export const OPEN_STREAMS = 1000;
/** Items of the JSON Lines export one client reads. */
const EXPORTED = 500_000;
/** How often the feed sends each client an event. */
const TICK_MS = 1000;
/** How long the thousand streams are held open while their events are counted. */
const HOLD_MS = 5000;

/** What the stream lines measured. */
export interface StreamFigures {
  openStreams: number;
  /** Resident memory with the streams open, less before they were, per open stream. */
  kibPerOpenStream: number;
  /** Events the feed delivered a second to the open streams (all clients together). */
  feedEventsPerSecond: number;
  /** Items a second of one JSON Lines stream. */
  exportItemsPerSecond: number;
  rssBeforeMiB: number;
  rssOpenMiB: number;
}

/** A GET of `path` whose answer is read as it comes: `onData` is told of each chunk. */
function open(origin: string, path: string, onData: (chunk: Buffer) => void): Promise<IncomingMessage> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve, reject) => {
    const req = request({ host: hostname, port, path, agent: false }, (res) => {
      if (res.statusCode !== 200) reject(new Error(`${path} answered ${res.statusCode}`));
      res.on('data', onData);
      resolve(res);
    });
    req.on('error', reject);
    req.end();
  });
}

const count = (chunk: Buffer, byte: number) => {
  let n = 0;
  for (let i = chunk.indexOf(byte); i >= 0; i = chunk.indexOf(byte, i + 1)) n++;
  return n;
};

/** Starts the streams server and measures it (see the module's comment). */
export async function measureStreams(): Promise<StreamFigures> {
  progress('streams: starting contract-kit with an event feed and a JSON Lines export');
  const server = await startServer({
    name: 'contract-kit, streams',
    ...benchServer('streams.ts', { TICK_MS: String(TICK_MS) }),
    probePath: '/healthz',
  });
  const responses: IncomingMessage[] = [];
  try {
    // Warmed: the first stream compiles the item's checks.
    (await open(server.origin, '/feed', () => undefined)).destroy();
    await new Promise((resolve) => setTimeout(resolve, 500));
    const rssBeforeMiB = server.rssMiB();
    progress(`streams: opening ${OPEN_STREAMS} event streams`);
    let events = 0;
    for (let i = 0; i < OPEN_STREAMS; i++)
      responses.push(await open(server.origin, '/feed', (chunk) => (events += count(chunk, 0x0a) / 4)));
    // Each stream's event is "id, event, data, blank line": four line breaks.
    await new Promise((resolve) => setTimeout(resolve, TICK_MS));
    progress(`streams: holding ${OPEN_STREAMS} streams for ${HOLD_MS / 1000} s`);
    const counted = events;
    await new Promise((resolve) => setTimeout(resolve, HOLD_MS));
    const feedEventsPerSecond = (events - counted) / (HOLD_MS / 1000);
    const rssOpenMiB = server.rssMiB();
    for (const res of responses) res.destroy();
    progress(`streams: one client reads ${EXPORTED.toLocaleString('en-US')} JSON Lines items`);
    let lines = 0;
    const started = performance.now();
    const exported = await open(server.origin, `/export?count=${EXPORTED}`, (chunk) => (lines += count(chunk, 0x0a)));
    await new Promise((resolve, reject) => exported.once('end', resolve).once('error', reject));
    const seconds = (performance.now() - started) / 1000;
    if (lines !== EXPORTED) throw new Error(`the export sent ${lines} items of ${EXPORTED}`);
    progress('');
    return {
      openStreams: OPEN_STREAMS,
      kibPerOpenStream: ((rssOpenMiB - rssBeforeMiB) * 1024) / OPEN_STREAMS,
      feedEventsPerSecond,
      exportItemsPerSecond: EXPORTED / seconds,
      rssBeforeMiB,
      rssOpenMiB,
    };
  } finally {
    for (const res of responses) res.destroy();
    await server.stop();
  }
}

/** The lines' rows, for the bench's tables: what, and the figure. */
export function streamRows(f: StreamFigures): string[][] {
  const n = (value: number) => Math.round(value).toLocaleString('en-US');
  return [
    ['measure', 'contract-kit, streamed answers (OpenAPI 3.2 itemSchema)'],
    [`resident memory per open event stream, ${n(f.openStreams)} open`, `${f.kibPerOpenStream.toFixed(1)} KiB`],
    [`resident memory before and with them`, `${Math.round(f.rssBeforeMiB)} and ${Math.round(f.rssOpenMiB)} MiB`],
    [`events a second to ${n(f.openStreams)} open streams (one each a second)`, n(f.feedEventsPerSecond)],
    ['JSON Lines items a second, one stream', n(f.exportItemsPerSecond)],
  ];
}
