import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { canonicalAddress } from '../limits/client-address.js';

/** How many connections the server holds at once, so that no crowd of them takes every one. */
export interface ConnectionLimits {
  /**
   * Connections in all (keep it below the open-file limit); a new one beyond it takes the place
   * of the connection idle longest, or is closed at once when every connection has a request in
   * progress, or when its address holds at least the mean of the addresses holding any and that
   * connection is another address's.
   */
  maxConnections: number;
  /** Connections one client address (an IPv6 /64) may hold; 0 for no such cap. */
  maxConnectionsPerAddress: number;
}

/** The connections a server holds, as {@link capConnections} keeps them. */
export interface HeldConnections {
  /** Connections open now. */
  readonly open: number;
  /** The response under way on `socket` (the last one, when pipelined), if a request is in progress there. */
  responding(socket: Socket): ServerResponse | undefined;
  /** From now on every response closes its connection after it, those under way included. */
  closeAfterResponses(): void;
}

/** A connection the server holds; while it has no request in progress, it is in the list of idle ones. */
interface Held {
  socket: Socket;
  /** Its client address, canonical. */
  address: string;
  /** The response under way (the last one, when pipelined); null while idle. */
  response: ServerResponse | null;
  /** In the list of idle connections (not once it was closed to make room). */
  listed: boolean;
  older: Held | null;
  newer: Held | null;
}

/**
 * The idle connections, idle longest first: a request takes its connection out, the end of its
 * response puts it back last. A linked list, so that each step is O(1): a Set or a Map used as a
 * queue is not, since V8 skips the entries deleted at its front on every new iteration, until it
 * next rebuilds its table (measured: 1 s of the service's CPU in 10 s of the flood of
 * `npm run adversarial`'s part 4).
 */
class IdleList {
  private oldest: Held | null = null;
  private newest: Held | null = null;

  push(held: Held): void {
    held.listed = true;
    held.older = this.newest;
    held.newer = null;
    if (this.newest) this.newest.newer = held;
    else this.oldest = held;
    this.newest = held;
  }

  remove(held: Held): void {
    if (held.older) held.older.newer = held.newer;
    else this.oldest = held.newer;
    if (held.newer) held.newer.older = held.older;
    else this.newest = held.older;
    held.older = held.newer = null;
    held.listed = false;
  }

  /** The connection idle longest, if any. */
  get first(): Held | null {
    return this.oldest;
  }
}

/**
 * Closes the connection idle longest to make room for a new one from `address`, unless none is
 * idle. An address that holds its share already (`fullShare`: at least the mean of the addresses
 * holding any) may replace only a connection of its own: a crowd from a few addresses pushes out
 * no one else's, while a new client (holding none) or a light one gets in.
 */
function madeRoom(idle: IdleList, address: string, fullShare: boolean): boolean {
  const longestIdle = idle.first;
  if (!longestIdle || (fullShare && longestIdle.address !== address)) return false;
  idle.remove(longestIdle);
  longestIdle.socket.destroy();
  return true;
}

/**
 * Caps the connections of `server`: `maxConnectionsPerAddress` per client address, and
 * `maxConnections` in all. A new connection beyond the total closes the one idle longest (no
 * request in progress: it never sent one, or waits between kept-alive requests) to take its
 * place, so that a crowd of idle connections, from however many addresses, never locks new
 * clients out, and clients that are being answered are never cut off. It is refused when every
 * connection has a request in progress, or when its address holds its share already and the
 * connection idle longest is another's. Node's own cap (server.maxConnections) would refuse it
 * before anyone could choose, so it is not set.
 *
 * A request costs a Map lookup and a few links at its start and at the end of its response.
 */
export function capConnections(server: Server, limits: ConnectionLimits): HeldConnections {
  const perAddress = limits.maxConnectionsPerAddress || Number.POSITIVE_INFINITY;
  const byAddress = new Map<string, number>();
  const held = new Map<Socket, Held>();
  const idle = new IdleList();
  let closing = false;
  // One listener for every response, not a closure per request. Node detaches the socket from
  // the response as it finishes, so it is found through the request.
  function answered(this: ServerResponse) {
    const connection = held.get(this.req.socket);
    // A later request on the connection (pipelined) is still under way: the connection stays busy.
    if (connection?.response !== this) return;
    connection.response = null;
    idle.push(connection);
  }
  // Before the app's listener: a response the app ends at once still finds its connection busy.
  server.prependListener('request', (req: IncomingMessage, res: ServerResponse) => {
    const connection = held.get(req.socket);
    if (connection) {
      if (connection.listed) idle.remove(connection);
      connection.response = res;
      res.on('finish', answered);
    }
    if (closing) res.setHeader('Connection', 'close');
  });
  server.on('connection', (socket: Socket) => {
    const address = canonicalAddress(socket.remoteAddress) ?? 'unknown';
    const holding = byAddress.get(address) ?? 0;
    if (holding >= perAddress) return void socket.destroy();
    if (held.size >= limits.maxConnections && !madeRoom(idle, address, holding * byAddress.size >= held.size)) return void socket.destroy();
    byAddress.set(address, holding + 1);
    const connection: Held = { socket, address, response: null, listed: false, older: null, newer: null };
    held.set(socket, connection);
    idle.push(connection);
    socket.once('close', () => {
      held.delete(socket);
      if (connection.listed) idle.remove(connection);
      const left = byAddress.get(address)! - 1;
      if (left === 0) byAddress.delete(address);
      else byAddress.set(address, left);
    });
  });
  return {
    get open() {
      return held.size;
    },
    responding: (socket) => held.get(socket)?.response ?? undefined,
    closeAfterResponses: () => {
      closing = true;
      for (const { response } of held.values()) if (response && !response.headersSent) response.setHeader('Connection', 'close');
    },
  };
}
