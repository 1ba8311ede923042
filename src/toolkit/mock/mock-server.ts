import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SPEC_PATH } from '../../contract/load-spec.js';
import { readMockContract } from './mock-contract.js';
import { MockProxy } from './mock-proxy.js';
import { startPrism } from './prism-process.js';

/** Options of {@link startMockServer}. */
export interface MockServerOptions {
  /** Port to listen on; 0 picks a free one. @default 4010 */
  port?: number;
  /** Address to listen on. @default '127.0.0.1' */
  host?: string;
  /** Generate response bodies from the schemas instead of answering with the named examples. @default false */
  dynamic?: boolean;
  /** The contract to serve. @default openapi.yaml */
  specPath?: string;
  /** Where Prism's request log goes (never its start-up lines); `null` drops it. @default null */
  log?: ((line: string) => void) | null;
  /** Where the mock's own line per request goes (`GET /v1/pets → 200`, as the client got it); `null` drops it. @default null */
  requestLog?: ((line: string) => void) | null;
  /** How long to wait for Prism to start, in milliseconds. @default 30000 */
  startTimeoutMs?: number;
}

/** A running mock server. */
export interface MockServer {
  /** Base URL of the API, with the version segment (`http://127.0.0.1:4010/v1`). */
  url: string;
  port: number;
  /** The contract's `info.title`. */
  title: string;
  /** The path of the contract's first GET without path parameters (`/pets`), to try the mock with; null when it has none. */
  examplePath: string | null;
  /** Stops the proxy and Prism. */
  close(): Promise<void>;
}

/** Listens on `port` of `host`; a port in use is named as such. */
function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((done, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      reject(error.code === 'EADDRINUSE' ? new Error(`Port ${port} on ${host} is already in use; pick another with --port.`) : error);
    });
    server.listen(port, host, () => done());
  });
}

/**
 * Starts Prism on the contract behind a thin proxy that makes it answer like the real server:
 * - paths under the version segment (`/v1`);
 * - invalid requests refused with a `400` Error body naming each field in the server's words,
 *   and the requests the server refuses before validating (integers not in plain digits,
 *   repeated or unknown query parameters, bodies JSON.parse would change) refused the same way;
 *   Prism's own errors as Error bodies;
 * - `Prefer: code=N` without an example answered with the first example of that response that
 *   fits the operation (a 400 naming only inputs the operation has);
 * - the headers an example goes with (its `x-headers`: a 429 with `X-RateLimit-Remaining: 0`
 *   and the `Retry-After` its message states);
 * - `Deprecation`, `Sunset` and a successor `Link` on every response of a deprecated operation,
 *   from the operation's own `x-deprecated-at`, `x-sunset` and `x-successor`, and on no response
 *   of any other operation.
 */
export async function startMockServer(options: MockServerOptions = {}): Promise<MockServer> {
  const specPath = options.specPath ?? SPEC_PATH;
  const host = options.host ?? '127.0.0.1';
  const contract = readMockContract(specPath);
  const prism = await startPrism(['mock', specPath, ...(options.dynamic ? ['--dynamic'] : [])], {
    log: options.log,
    startTimeoutMs: options.startTimeoutMs,
  });
  const { listener } = new MockProxy(contract, prism.port, options.dynamic ?? false);
  const requestLog = options.requestLog;
  const proxy = createServer(
    requestLog
      ? (req, res) => {
          res.once('finish', () => requestLog(`${req.method} ${req.url} → ${res.statusCode}`));
          listener(req, res);
        }
      : listener,
  );
  try {
    await listen(proxy, options.port ?? 4010, host);
  } catch (error) {
    await prism.stop();
    throw error;
  }
  const { port } = proxy.address() as AddressInfo;
  const shownHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shownHost}:${port}${contract.basePath}`,
    port,
    title: contract.title,
    examplePath: [...contract.operations.keys()].find((op) => op.method === 'get' && !op.path.includes('{'))?.path ?? null,
    close: async () => {
      const closed = new Promise<void>((done) => proxy.close(() => done()));
      proxy.closeAllConnections();
      await closed;
      await prism.stop();
    },
  };
}
