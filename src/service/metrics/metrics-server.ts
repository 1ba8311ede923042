import type { RequestListener } from 'node:http';
import { serve, type Served } from 'contract-kit';
import type { Registry } from 'prom-client';

/**
 * The metrics on a port of their own (never the API's, so they are not public by accident):
 * `GET /metrics` in Prometheus's text format; anything else 404.
 */
function metricsListener(registry: Registry): RequestListener {
  return (req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      if (path === '/metrics') res.writeHead(405, { 'Content-Type': 'text/plain', Allow: 'GET, HEAD' }).end('GET only\n');
      else res.writeHead(404, { 'Content-Type': 'text/plain' }).end('Not found: try /metrics\n');
      return;
    }
    registry.metrics().then(
      (text) => {
        res.writeHead(200, { 'Content-Type': registry.contentType }).end(req.method === 'HEAD' ? undefined : text);
      },
      (error: unknown) => {
        res
          .writeHead(500, { 'Content-Type': 'text/plain' })
          .end(`metrics failed: ${error instanceof Error ? error.message : String(error)}\n`);
      },
    );
  };
}

/**
 * Starts the metrics server on `port` and `host` (contract-kit's serve, with its timeouts and
 * caps; the service stops it); rejects with Node's error when it cannot listen there.
 */
export function listenForMetrics(registry: Registry, port: number, host: string): Promise<Served> {
  return serve(metricsListener(registry), { port, host, signals: [], shutdownTimeoutMs: 1000 });
}
