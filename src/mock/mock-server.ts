import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadSpec, resolveRef, SPEC_PATH } from '../spec/load-spec.js';
import { startPrism } from './prism-process.js';
import { basePathOf } from '../spec/operations.js';
import { prismViolationsToError, problemToError, withoutHeaderViolation, type ErrorBody } from './prism-translation.js';

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
  /** Where Prism's own request log goes; `null` drops it. @default null */
  log?: ((line: string) => void) | null;
  /** How long to wait for Prism to start, in milliseconds. @default 30000 */
  startTimeoutMs?: number;
}

/** A running mock server. */
export interface MockServer {
  /** Base URL of the API, with the version segment (`http://127.0.0.1:4010/v1`). */
  url: string;
  port: number;
  /** Stops the proxy and Prism. */
  close(): Promise<void>;
}

/**
 * Starts Prism on the contract behind a thin proxy that makes it answer like the real server:
 * paths under the version segment (`/v1`), request-validation failures as a `400` Error body
 * naming each field, Prism's own errors as Error bodies, and the `Deprecation` header in the
 * form the contract gives (Prism sends the obsolete `true`).
 */
export async function startMockServer(options: MockServerOptions = {}): Promise<MockServer> {
  const specPath = options.specPath ?? SPEC_PATH;
  const host = options.host ?? '127.0.0.1';
  const doc = loadSpec(specPath);
  const basePath = basePathOf(doc);
  const headerExample = (name: string): string => {
    const header = resolveRef<{ example?: unknown }>(doc, doc.components?.headers?.[name]);
    if (header?.example === undefined) throw new Error(`components.headers.${name} has no example`);
    return String(header.example);
  };
  const commonHeaders: Record<string, string> = {
    'x-ratelimit-limit': headerExample('X-RateLimit-Limit'),
    'x-ratelimit-remaining': headerExample('X-RateLimit-Remaining'),
    'x-ratelimit-reset': headerExample('X-RateLimit-Reset'),
    'x-request-id': headerExample('X-Request-Id'),
  };
  // Prism marks every response of a deprecated operation with `deprecation: true`; the real
  // server sends all three headers of the contract on each of them.
  const deprecationHeaders: Record<string, string> = {
    deprecation: headerExample('Deprecation'),
    sunset: headerExample('Sunset'),
    link: headerExample('LinkSuccessor'),
  };
  const parameterNames = new Map<string, string>();
  for (const item of Object.values(doc.paths)) {
    for (const op of Object.values(item)) {
      for (const p of ((op as { parameters?: unknown[] })?.parameters ?? [])) {
        const name = resolveRef<{ name?: string }>(doc, p)?.name;
        if (name) parameterNames.set(name.toLowerCase(), name);
      }
    }
  }

  const args = ['mock', specPath];
  if (options.dynamic) args.push('--dynamic');
  const prism = await startPrism(args, { log: options.log, startTimeoutMs: options.startTimeoutMs });
  const prismPort = prism.port;
  const stopPrism = prism.stop;

  const sendError = (res: ServerResponse, body: ErrorBody, headers: Record<string, string> = {}) => {
    const text = JSON.stringify(body);
    res.writeHead(body.status, {
      ...commonHeaders,
      ...headers,
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(text)),
    });
    res.end(text);
  };

  const proxy = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = req.url ?? '/';
    if (url !== basePath && !url.startsWith(`${basePath}/`) && !url.startsWith(`${basePath}?`)) {
      sendError(res, {
        code: 'not_found',
        message: `No route ${req.method} ${url.split('?')[0]}; every path is under ${basePath}.`,
        status: 404,
      });
      return;
    }
    const upstream = httpRequest(
      {
        host: '127.0.0.1',
        port: prismPort,
        method: req.method,
        path: url.slice(basePath.length) || '/',
        headers: { ...req.headers, host: `127.0.0.1:${prismPort}` },
      },
      (upRes) => {
        const chunks: Buffer[] = [];
        upRes.on('data', (c: Buffer) => chunks.push(c));
        upRes.on('end', () => {
          const headers = { ...upRes.headers };
          const status = upRes.statusCode ?? 500;
          const raw = Buffer.concat(chunks);
          if (headers.deprecation === 'true') {
            Object.assign(headers, { ...deprecationHeaders, ...(headers.link ? { link: headers.link } : {}) });
            const violations = headers['sl-violations'];
            if (typeof violations === 'string') {
              const rest = withoutHeaderViolation(violations, 'deprecation');
              if (rest === null) delete headers['sl-violations'];
              else headers['sl-violations'] = rest;
            }
          }

          const translated =
            prismViolationsToError(status, headers['sl-violations'], parameterNames) ??
            problemToError(status, headers['content-type'], raw);
          if (translated) {
            const keep: Record<string, string> = {};
            for (const [k, v] of Object.entries(headers)) {
              if (typeof v === 'string' && k !== 'content-type' && k !== 'content-length') keep[k] = v;
            }
            sendError(res, translated, keep);
            return;
          }
          delete headers['content-length'];
          delete headers['transfer-encoding'];
          res.writeHead(status, { ...headers, 'content-length': String(raw.length) });
          res.end(raw);
        });
      },
    );
    upstream.on('error', (error) => {
      sendError(res, { code: 'service_unavailable', message: `The mock backend is unavailable: ${error.message}`, status: 503 }, { 'Retry-After': '1' });
    });
    req.pipe(upstream);
  });

  const requestedPort = options.port ?? 4010;
  await new Promise<void>((done, reject) => {
    proxy.once('error', async (error: NodeJS.ErrnoException) => {
      await stopPrism();
      reject(
        error.code === 'EADDRINUSE'
          ? new Error(`Port ${requestedPort} on ${host} is already in use; pick another with --port.`)
          : error,
      );
    });
    proxy.listen(requestedPort, host, () => done());
  });
  const { port } = proxy.address() as AddressInfo;
  const shownHost = host.includes(':') ? `[${host}]` : host;

  return {
    url: `http://${shownHost}:${port}${basePath}`,
    port,
    close: async () => {
      const closed = new Promise<void>((done) => proxy.close(() => done()));
      proxy.closeAllConnections();
      await closed;
      await stopPrism();
    },
  };
}
