/**
 * Part 7 of `npm run adversarial`: uploaders that send request bodies without end, chunked,
 * beside a polite client.
 */
import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import { percentile, verdict } from './redis-stall.js';
import type { ServerProcess } from './support/server-process.js';

/** What the uploaders sent and the polite client met. */
export interface BodyFloodFigures {
  uploaders: number;
  /** Uploads begun, and the bytes they sent in all before the service closed each. */
  uploads: number;
  sentBytes: number;
  /** Statuses the uploads were answered with. */
  statuses: Map<string, number>;
  /** The polite client's latencies and failures (GET /v1/pets on one kept-alive connection). */
  latencies: number[];
  failures: number;
}

/** Most an upload may send before the service closes it: the 16 KiB limit and the sockets' buffers on loopback. */
const MAX_MIB_PER_UPLOAD = 16;

/**
 * The uploaders, in a worker thread so that their writing does not delay the polite client:
 * each sends `POST /v1/pets` with a chunked body of 1 MiB chunks until the service closes the
 * connection, then starts again. Told 'stop', it posts what was sent.
 */
const UPLOADERS = `
const { parentPort, workerData } = require('node:worker_threads');
const { connect } = require('node:net');
const { port, key, uploaders } = workerData;
const chunk = Buffer.concat([Buffer.from((1024 * 1024).toString(16) + '\\r\\n'), Buffer.alloc(1024 * 1024, 'a'), Buffer.from('\\r\\n')]);
let flooding = true;
let uploads = 0;
let sentBytes = 0;
const statuses = {};
const open = new Set();
function upload() {
  if (!flooding) return;
  uploads++;
  const socket = connect(port, '127.0.0.1');
  open.add(socket);
  let answered = false;
  socket.on('data', (data) => {
    if (answered) return;
    answered = true;
    const status = /^HTTP\\/1\\.1 (\\d{3})/.exec(data.toString('latin1'));
    const name = status ? status[1] : 'no status';
    statuses[name] = (statuses[name] || 0) + 1;
  });
  socket.on('error', () => undefined);
  socket.on('close', () => {
    open.delete(socket);
    if (!answered) statuses['closed without an answer'] = (statuses['closed without an answer'] || 0) + 1;
    setImmediate(upload);
  });
  const write = () => {
    while (!socket.destroyed && flooding) {
      sentBytes += chunk.length;
      if (!socket.write(chunk)) return socket.once('drain', write);
    }
  };
  socket.on('connect', () => {
    socket.write('POST /v1/pets HTTP/1.1\\r\\nHost: localhost\\r\\nAuthorization: Bearer ' + key + '\\r\\nContent-Type: application/json\\r\\nTransfer-Encoding: chunked\\r\\n\\r\\n');
    write();
  });
}
parentPort.on('message', () => {
  flooding = false;
  for (const socket of open) socket.destroy();
  parentPort.postMessage({ uploads, sentBytes, statuses });
  parentPort.close();
});
for (let i = 0; i < uploaders; i++) upload();
`;

/** GETs on one kept-alive connection, 20 a second for `seconds`: their latencies and failures. */
async function politeGets(server: ServerProcess, key: string, seconds: number): Promise<{ latencies: number[]; failures: number }> {
  const latencies: number[] = [];
  let failures = 0;
  const until = performance.now() + seconds * 1000;
  while (performance.now() < until) {
    const next = performance.now() + 50;
    const started = performance.now();
    try {
      const response = await fetch(`${server.origin}/v1/pets?limit=20`, {
        headers: { Authorization: `Bearer ${key}` },
        signal: AbortSignal.timeout(10_000),
      });
      await response.arrayBuffer();
      if (response.status === 200) latencies.push(performance.now() - started);
      else failures++;
    } catch {
      failures++;
    }
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, next - performance.now())));
  }
  return { latencies, failures };
}

/**
 * Runs `uploaders` endless chunked uploads (UPLOADERS) with `uploadKey`, whose limit they do not
 * reach, for `seconds`, while a polite client lists animals.
 */
export async function floodBodies(
  server: ServerProcess,
  keys: { uploadKey: string; politeKey: string },
  options: { uploaders: number; seconds: number },
): Promise<BodyFloodFigures> {
  const worker = new Worker(UPLOADERS, {
    eval: true,
    workerData: { port: server.port, key: keys.uploadKey, uploaders: options.uploaders },
  });
  try {
    const { latencies, failures } = await politeGets(server, keys.politeKey, options.seconds);
    worker.postMessage('stop');
    const [sent] = (await once(worker, 'message')) as [{ uploads: number; sentBytes: number; statuses: Record<string, number> }];
    return { uploaders: options.uploaders, ...sent, statuses: new Map(Object.entries(sent.statuses)), latencies, failures };
  } finally {
    await worker.terminate();
  }
}

/** Part 7 of the report. */
export function bodyFloodLines({ uploaders, uploads, sentBytes, statuses, latencies, failures }: BodyFloodFigures): string[] {
  const perUpload = sentBytes / Math.max(1, uploads) / 1024 / 1024;
  const p99 = percentile(latencies, 99);
  const answered = [...statuses].map(([status, n]) => `${n} × ${status}`).join(', ');
  return [
    `7. endless chunked bodies: ${uploaders} uploaders began ${uploads.toLocaleString('en-US')} uploads (${answered}), sending ${(sentBytes / 1024 / 1024 / 1024).toFixed(2)} GiB in all`,
    `   ${perUpload.toFixed(1)} MiB sent per upload before the service closed it (target: under ${MAX_MIB_PER_UPLOAD} MiB) ${verdict(perUpload < MAX_MIB_PER_UPLOAD)}`,
    `   polite client, ${latencies.length + failures} GETs on one connection: ${failures} failed; p50 ${percentile(latencies, 50).toFixed(1)} ms, p99 ${p99.toFixed(1)} ms (target: p99 under 50 ms, no failure) ${verdict(p99 < 50 && failures === 0)}`,
  ];
}
