import { connect, createServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * What the proxy does with connections: pass them on; refuse them (cutting open ones, as a
 * crash would); accept new ones and never answer (cutting open ones); keep open connections
 * but stop answering on them, as a server that hangs does; or pass on what clients send but
 * none of the answers, so the server does what it is asked and the client never hears of it.
 */
export type ProxyMode = 'forward' | 'refuse' | 'blackhole' | 'stall' | 'mute';

/**
 * A TCP proxy on loopback in front of a real PostgreSQL or Redis, to take the dependency
 * "down" or make it "slow" for one test (or `npm run adversarial`) without touching the shared server.
 */
export async function startTcpProxy(targetHost: string, targetPort: number) {
  let mode: ProxyMode = 'forward';
  const sockets = new Set<Socket>();
  const pairs = new Set<[Socket, Socket]>();
  const track = (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => s.destroy());
  };
  const server = createServer((client) => {
    track(client);
    if (mode === 'refuse') return client.destroy();
    if (mode === 'blackhole' || mode === 'stall') return client.resume(); // accepted, never answered
    const upstream = connect(targetPort, targetHost);
    track(upstream);
    const pair: [Socket, Socket] = [client, upstream];
    pairs.add(pair);
    client.pipe(upstream);
    if (mode === 'mute') upstream.resume();
    else upstream.pipe(client);
    upstream.on('close', () => {
      pairs.delete(pair);
      client.destroy();
    });
    client.on('close', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    /** Switches mode (see ProxyMode). */
    setMode(next: ProxyMode) {
      mode = next;
      if (next === 'refuse' || next === 'blackhole') for (const s of sockets) s.destroy();
      if (next === 'stall' || next === 'mute') {
        for (const [client, upstream] of pairs) {
          if (next === 'stall') client.unpipe(upstream);
          upstream.unpipe(client);
          client.resume();
          upstream.resume();
        }
      }
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
