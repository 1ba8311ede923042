import { createServer, request, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A response as the tampering proxy sees it, before it forwards it. */
export interface Intercepted {
  method: string;
  path: string;
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/**
 * Starts a proxy in front of `upstreamBaseUrl` that lets `tamper` change each response: a
 * server that breaks the contract in one known way, to prove the contract suite notices.
 * Returns the proxy's base URL (same path as the upstream's) and a function that stops it.
 */
export async function startTamperingProxy(
  upstreamBaseUrl: string,
  /** Returns the response to send, or null to drop the connection without answering. */
  tamper: (response: Intercepted) => Intercepted | null,
): Promise<{ baseUrl: string; close(): Promise<void> }> {
  const upstream = new URL(upstreamBaseUrl);
  const server = createServer((req, res) => {
    const forward = request(
      { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers },
      (upRes) => {
        const chunks: Buffer[] = [];
        upRes.on('data', (c: Buffer) => chunks.push(c));
        upRes.on('end', () => {
          const out = tamper({
            method: req.method ?? 'GET',
            path: req.url ?? '/',
            status: upRes.statusCode ?? 500,
            headers: { ...upRes.headers },
            body: Buffer.concat(chunks),
          });
          if (out === null) {
            req.socket.destroy();
            return;
          }
          delete out.headers['transfer-encoding'];
          out.headers['content-length'] = String(out.body.length);
          res.writeHead(out.status, out.headers);
          res.end(out.body);
        });
      },
    );
    forward.on('error', () => res.destroy());
    req.pipe(forward);
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}${upstream.pathname}`,
    close: () =>
      new Promise<void>((done) => {
        server.close(() => done());
        server.closeAllConnections();
      }),
  };
}

/** A tampering that drops `status` from every Error body (the contract requires it). */
export function withoutErrorStatus(r: Intercepted): Intercepted {
  if (r.status >= 400) {
    const body = JSON.parse(r.body.toString()) as Record<string, unknown>;
    delete body.status;
    r.body = Buffer.from(JSON.stringify(body));
  }
  return r;
}
