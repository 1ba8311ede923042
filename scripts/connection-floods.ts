/**
 * Parts 4 and 5 of `npm run adversarial`: floods of idle connections (many connections from each
 * of a few addresses, and one from each of more addresses than the service holds connections)
 * beside polite clients, each from a loopback address of its own.
 */
import { once } from 'node:events';
import { Agent, request as httpRequest } from 'node:http';
import { Worker } from 'node:worker_threads';
import type { ServerProcess } from './support/server-process.js';
import { percentile, verdict } from './redis-stall.js';

/** What one polite client met: its latencies and its failures, by error. */
interface PoliteFigures {
  name: string;
  latencies: number[];
  failures: Map<string, number>;
}

/** What polite clients met while idle connections flooded the service. */
export interface ConnectionFloodFigures {
  /** Idle connections the flood opened (again, once the service closed them), and from how many addresses. */
  opened: number;
  addresses: number;
  /** Of them, the ones open on the flood's side when the polite clients were done (held by the service, or connected and not yet accepted). */
  heldAtEnd: number;
  polite: PoliteFigures[];
}

/**
 * The flood of idle connections, run in a worker thread so that its churn does not delay the
 * polite clients' event loop: `connections` connections to `port` from loopback addresses
 * 127.2.x.y (all of 127/8 is loopback on Linux), each opened again a second after it closes.
 * It posts 'ready' once all are open, and, when told 'stop', the number opened and still open.
 */
const CONNECTION_FLOOD = `
const { parentPort, workerData } = require('node:worker_threads');
const { connect } = require('node:net');
const { port, connections, addresses } = workerData;
let flooding = true;
let opened = 0;
const open = new Set();
const openFrom = (address) => new Promise((resolve) => {
  opened++;
  const socket = connect({ port, host: '127.0.0.1', localAddress: address }, resolve);
  open.add(socket);
  socket.on('error', () => undefined);
  socket.on('close', () => {
    open.delete(socket);
    resolve();
    if (flooding) setTimeout(() => flooding && openFrom(address), 1000);
  });
});
const address = (n) => '127.2.' + Math.floor(n / 250) + '.' + ((n % 250) + 1);
parentPort.on('message', () => {
  flooding = false;
  parentPort.postMessage({ opened, heldAtEnd: open.size });
  for (const socket of open) socket.destroy();
  parentPort.close();
});
(async () => {
  for (let i = 0; i < connections; i += 500) {
    const batch = Math.min(500, connections - i);
    await Promise.all(Array.from({ length: batch }, (_, j) => openFrom(address((i + j) % addresses))));
  }
  parentPort.postMessage('ready');
})();
`;

/** One GET through `agent` (false: on a new connection) from `localAddress`: its milliseconds, or what ended it. */
function get(server: ServerProcess, key: string, localAddress: string, agent: Agent | false): Promise<number | string> {
  const started = performance.now();
  return new Promise((resolve) => {
    const headers = { Authorization: `Bearer ${key}` };
    const req = httpRequest(`${server.origin}/v1/pets?limit=20`, { headers, agent, localAddress, timeout: 10_000 }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode === 200 ? performance.now() - started : String(res.statusCode)));
    });
    req.on('timeout', () => req.destroy(new Error('no answer within 10 s')));
    req.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
    req.end();
  });
}

/** Where a polite client sends each GET: on a new connection, on its one kept-alive connection, or on each in turn. */
type Connections = 'new' | 'kept' | 'kept and new';

/** A polite client from `localAddress`, 20 GETs a second until `until`. */
async function politeClient(server: ServerProcess, key: string, localAddress: string, connections: Connections, until: number) {
  const name = {
    new: 'a new connection each time',
    kept: 'one kept-alive connection',
    'kept and new': 'a kept-alive connection and a new one in turn',
  }[connections];
  const figures: PoliteFigures = { name, latencies: [], failures: new Map() };
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  for (let i = 0; performance.now() < until; i++) {
    const next = performance.now() + 50;
    const onKept = connections === 'kept' || (connections === 'kept and new' && i % 2 === 0);
    const outcome = await get(server, key, localAddress, onKept ? agent : false);
    if (typeof outcome === 'string') figures.failures.set(outcome, (figures.failures.get(outcome) ?? 0) + 1);
    else figures.latencies.push(outcome);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, next - performance.now())));
  }
  agent.destroy();
  return figures;
}

/**
 * Opens `connections` idle connections from `addresses` loopback addresses (CONNECTION_FLOOD),
 * which send nothing and are opened again a second after the service closes them; then, for
 * `seconds`, three polite clients list animals side by side: one on a new connection each time,
 * one on one kept-alive connection, one alternately on its kept-alive connection and a new one.
 */
async function floodConnections(
  server: ServerProcess,
  politeKey: string,
  options: { connections: number; addresses: number; seconds: number },
): Promise<ConnectionFloodFigures> {
  const worker = new Worker(CONNECTION_FLOOD, { eval: true, workerData: { port: server.port, ...options } });
  await once(worker, 'message');
  const until = performance.now() + options.seconds * 1000;
  const polite = await Promise.all([
    politeClient(server, politeKey, '127.0.0.1', 'new', until),
    politeClient(server, politeKey, '127.0.0.2', 'kept', until),
    politeClient(server, politeKey, '127.0.0.3', 'kept and new', until),
  ]);
  worker.postMessage('stop');
  const [{ opened, heldAtEnd }] = (await once(worker, 'message')) as [{ opened: number; heldAtEnd: number }];
  await worker.terminate();
  return { opened, addresses: options.addresses, heldAtEnd, polite };
}

/**
 * Parts 4 and 5: the polite clients while `connections` idle connections from `connectionAddresses`
 * loopback addresses flood the service, then while `spreadConnections` do, one from each address.
 */
export async function connectionFloods(
  server: ServerProcess,
  politeKey: string,
  options: { connections: number; connectionAddresses: number; spreadConnections: number; seconds: number },
  log: (line: string) => void,
): Promise<{ connections: ConnectionFloodFigures; spread: ConnectionFloodFigures }> {
  const { connections, connectionAddresses, spreadConnections, seconds } = options;
  log(`4/8 ${connections} idle connections from ${connectionAddresses} loopback addresses, and polite clients for ${seconds} s`);
  const crowd = await floodConnections(server, politeKey, { connections, addresses: connectionAddresses, seconds });
  log(`5/8 ${spreadConnections} idle connections, one from each loopback address, and polite clients for ${seconds} s`);
  const spread = await floodConnections(server, politeKey, { connections: spreadConnections, addresses: spreadConnections, seconds });
  return { connections: crowd, spread };
}

/** Parts 4 and 5 of the report, `title` naming the flood: every polite client served, p99 under 50 ms. */
export function connectionLines(title: string, { opened, addresses, heldAtEnd, polite }: ConnectionFloodFigures): string[] {
  const lines = [
    `${title}: ${opened.toLocaleString('en-US')} idle connections opened from ${addresses.toLocaleString('en-US')} loopback addresses, ${heldAtEnd.toLocaleString('en-US')} open on its side at the end (held by the service, or not yet accepted)`,
  ];
  for (const { name, latencies, failures } of polite) {
    const failed = [...failures.values()].reduce((a, b) => a + b, 0);
    const p99 = percentile(latencies, 99);
    const reasons = failed === 0 ? '' : ` (${[...failures].map(([reason, n]) => `${n} × ${reason}`).join(', ')})`;
    lines.push(
      `   polite client, ${name}: ${failed} of ${latencies.length + failed} GETs failed${reasons}; p50 ${percentile(latencies, 50).toFixed(1)} ms, p99 ${p99.toFixed(1)} ms (target: none failed, p99 under 50 ms) ${verdict(failed === 0 && p99 < 50)}`,
    );
  }
  return lines;
}
