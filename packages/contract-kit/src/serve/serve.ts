import { createRequire } from 'node:module';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { closeUnreadBody, DEFAULT_BODY_LIMIT_BYTES } from '../server/close-unread-body.js';
import { capConnections } from './connection-cap.js';
import { gracefulStop, stopOnSignals } from './graceful-stop.js';
import { listenShared } from './listeners.js';
import { SERVE_DEFAULTS, type ServeOptions, type Served } from './serve-options.js';
import { refuseUnparsed } from './unparsed.js';

// Required, not imported: an ES import of node:http loads undici (nodejs/node#59686).
const { createServer } = createRequire(import.meta.url)('node:http') as typeof import('node:http');

/**
 * Listens with the app on Node's HTTP server, with timeouts that bound how long a slow client
 * holds a connection, connections capped in all and by client address, closeUnreadBody on every
 * request, requests Node cannot parse answered in the app's error body (see answerOf), and a
 * stop that ends within shutdownTimeoutMs whatever the clients do: what a server needs in
 * production, where Node's defaults let one request hold a stop for 5 minutes.
 */
export async function serve(app: RequestListener, options: ServeOptions = {}): Promise<Served> {
  const settings = { ...SERVE_DEFAULTS, ...options };
  const onWarning = options.onWarning ?? ((message: string) => console.warn(message));
  // Node enforces the two request timeouts only when it checks its connections (every 30 s by
  // default), which would let a slow client hold a connection up to 30 s past them.
  const enforced = [settings.headersTimeoutMs, settings.requestTimeoutMs].filter((ms) => ms > 0);
  const server = createServer({
    // A request without a Host header reaches the app, whose router answers it in the contract's
    // error shape (Node's own answer is a bare 400).
    requireHostHeader: false,
    connectionsCheckingInterval: Math.max(10, Math.floor(Math.min(4000, ...enforced) / 4)),
    headersTimeout: settings.headersTimeoutMs,
    requestTimeout: settings.requestTimeoutMs,
    keepAliveTimeout: settings.keepAliveTimeoutMs,
  });
  const connections = capConnections(server, settings);
  server.on('request', app);
  // An Expect other than 100-continue: Node alone answers a bare 417. RFC 9110 (10.1.1) lets a
  // server handle the request as if the expectation were absent, so it gets the answer it asked for.
  server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) => server.emit('request', req, res));
  server.on('request', (req, res) => closeUnreadBody(req, res, options.bodyLimitBytes ?? DEFAULT_BODY_LIMIT_BYTES));
  server.on('clientError', refuseUnparsed(connections, { ...options, onWarning }));
  const listening = await listenShared(server, options.port ?? SERVE_DEFAULTS.port, options.host, settings.listeningSockets);
  const { port } = listening;
  const shownHost = options.host === undefined || ['0.0.0.0', '::', '127.0.0.1', '::1'].includes(options.host) ? 'localhost' : options.host;
  const stop = gracefulStop(server, connections, listening, { ...settings, onWarning });
  const signals = options.signals ?? ['SIGTERM', 'SIGINT'];
  if (signals.length > 0) stopOnSignals({ stop }, { signals });
  if (options.ready) sayWhenReady(options.ready, options.onInfo ?? ((message: string) => console.log(message)));
  return {
    server,
    port,
    origin: `http://${shownHost}:${port}`,
    get connections() {
      return connections.open;
    },
    stop,
  };
}

/** Says once every contract server's validators are compiled: how many operations, how long since the first began. */
function sayWhenReady(ready: NonNullable<ServeOptions['ready']>, info: (message: string) => void): void {
  void Promise.all([ready].flat()).then((all) => {
    const count = (key: 'operations' | 'compiled' | 'failed') => all.reduce((sum, r) => sum + r[key], 0);
    if (count('compiled') + count('failed') < count('operations'))
      return info(`Validators: each of ${count('operations')} operations is compiled on its first request (warmUp 'lazy')`);
    const failed = count('failed') > 0 ? `, ${count('failed')} of them failing to compile (see the warnings)` : '';
    const ms = Math.max(...all.map((r) => r.milliseconds));
    info(`Validators ready: ${count('operations')} operations${failed}, compiled in ${Math.round(ms).toLocaleString('en-US')} ms`);
  });
}
