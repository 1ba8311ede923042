import { once } from 'node:events';
import type { Server } from 'node:http';
import { createServer, type AddressInfo, type Server as NetServer, type Socket } from 'node:net';

/** Where a server listens, and how it stops. */
export interface Listening {
  /** The port (the one picked, when asked for port 0). */
  port: number;
  /**
   * Stops listening on every socket; resolves once every connection they accepted has closed
   * (as server.close does for its own).
   */
  close(): Promise<void>;
}

/** Listens with `server` on `options`, resolving when it does, rejecting with its 'error'. */
async function listenOn(server: NetServer, options: { port: number; host: string | undefined; reusePort?: boolean }): Promise<void> {
  server.listen(options);
  await once(server, 'listening');
}

const closed = (server: NetServer) => new Promise<void>((resolve) => server.close(() => resolve()));

/**
 * `server` listening on `port` and `host` with `sockets` sockets sharing the port
 * (SO_REUSEPORT: the system spreads new connections over them), the others' connections handed to
 * `server` as its own ('connection'), so timeouts, caps and closeIdleConnections see them all.
 *
 * A port in use is refused as a plain listen refuses it (EADDRINUSE), also when another process
 * shares it: a socket without SO_REUSEPORT takes the port first, then gives it to the shared ones.
 * Where the system cannot share a port (the error of a shared listen), `server` listens alone.
 */
export async function listenShared(server: Server, port: number, host: string | undefined, sockets: number): Promise<Listening> {
  if (sockets <= 1) {
    await listenOn(server, { port, host });
    return { port: (server.address() as AddressInfo).port, close: () => closed(server) };
  }
  const probe = createServer();
  await listenOn(probe, { port, host });
  const chosen = (probe.address() as AddressInfo).port;
  await closed(probe);
  try {
    await listenOn(server, { port: chosen, host, reusePort: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOTSUP') throw error;
    await listenOn(server, { port: chosen, host });
    return { port: chosen, close: () => closed(server) };
  }
  // As Node's HTTP server takes connections: half-open allowed, no Nagle delay.
  const others = Array.from({ length: sockets - 1 }, () =>
    createServer({ allowHalfOpen: true, noDelay: true }, (socket: Socket) => server.emit('connection', socket)),
  );
  try {
    for (const other of others) await listenOn(other, { port: chosen, host, reusePort: true });
  } catch (error) {
    await Promise.all([server, ...others].filter((s) => s.listening).map(closed));
    throw error;
  }
  return { port: chosen, close: () => Promise.all([server, ...others].map(closed)).then(() => {}) };
}
