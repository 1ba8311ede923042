import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { canonicalAddress } from './client-address.js';

/** How many connections the server holds at once, so that no crowd of them takes every one. */
export interface ConnectionLimits {
  /**
   * Connections in all (keep it below the open-file limit); a new one beyond it takes the place
   * of an idle one (see {@link capConnections}), or is closed at once when none may go.
   */
  maxConnections: number;
  /** Connections one client address (an IPv6 /64) may hold; 0 for no cap. */
  maxConnectionsPerAddress: number;
}

/**
 * An address holding at most this many connections is never taken for a crowd, however many
 * addresses hold fewer: as many as a browser opens to one origin.
 */
const A_FEW = 6;

/** The connections a server holds, as {@link capConnections} keeps them. */
export interface HeldConnections {
  /** Connections open now. */
  readonly open: number;
  /** The response under way on `socket` (the last one, when pipelined), if a request is in progress there. */
  responding(socket: Socket): ServerResponse | undefined;
  /** From now on every response closes its connection after it, those under way included. */
  closeAfterResponses(): void;
}

/** A connection the server holds; while it has no request in progress, it is in a list of idle ones. */
interface Held {
  socket: Socket;
  /** Its client address, canonical. */
  address: string;
  /** The response under way (the last one, when pipelined); null while idle. */
  response: ServerResponse | null;
  /** The list of idle connections it is in, if any (none once it was closed to make room). */
  list: IdleList | null;
  older: Held | null;
  newer: Held | null;
}

/**
 * Idle connections, idle longest first: a request takes its connection out, the end of its
 * response puts it back last (in the list of connections served before). A linked list, so that
 * each step is O(1): a Set or a Map used as a queue is not, since V8 skips the entries deleted at
 * its front on every new iteration, until it next rebuilds its table.
 */
class IdleList {
  private oldest: Held | null = null;
  private newest: Held | null = null;

  push(held: Held): void {
    held.list = this;
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
    held.list = null;
  }

  /** The connection idle longest, if any. */
  get first(): Held | null {
    return this.oldest;
  }
}

/**
 * Closes an idle connection to make room for a new one from `address`: the one idle longest of
 * those that never sent a request, else of those served before, else none. An address that holds
 * its share already (`crowd`) may replace only a connection of its own: a crowd from a few
 * addresses pushes out no one else's, while a new client or a light one gets in.
 */
function madeRoom(waiting: IdleList, kept: IdleList, address: string, crowd: boolean): boolean {
  const longestIdle = waiting.first ?? kept.first;
  if (!longestIdle || (crowd && longestIdle.address !== address)) return false;
  longestIdle.list!.remove(longestIdle);
  longestIdle.socket.destroy();
  return true;
}

/**
 * Caps the connections of `server`: `maxConnectionsPerAddress` per client address, and
 * `maxConnections` in all. A new connection beyond the total takes the place of an idle one (no
 * request in progress): first of the one idle longest that never sent a request, and only when
 * none is left, of the one idle longest that was served before and waits between kept-alive
 * requests. So idle connections, from however many addresses, lock out neither a new client nor
 * one that was served before, and clients being answered are never cut off. It is refused when
 * no connection is idle, or when its address is a crowd (more than {@link A_FEW} connections and
 * at least the mean of the addresses holding any) and the connection that would go is another's.
 * Node's own cap (server.maxConnections) would refuse it before anyone could choose, so it is not set.
 *
 * A request costs a Map lookup and a few links at its start and at the end of its response.
 */
export function capConnections(server: Server, limits: ConnectionLimits): HeldConnections {
  const perAddress = limits.maxConnectionsPerAddress || Number.POSITIVE_INFINITY;
  const byAddress = new Map<string, number>();
  const held = new Map<Socket, Held>();
  const waiting = new IdleList();
  const kept = new IdleList();
  let closing = false;
  // One listener for every response, not a closure per request. Node detaches the socket from
  // the response as it finishes, so it is found through the request.
  function answered(this: ServerResponse) {
    const connection = held.get(this.req.socket);
    // A later request on the connection (pipelined) is still under way: the connection stays busy.
    if (connection?.response !== this) return;
    connection.response = null;
    kept.push(connection);
  }
  // Before the app's listener: a response the app ends at once still finds its connection busy.
  server.prependListener('request', (req: IncomingMessage, res: ServerResponse) => {
    const connection = held.get(req.socket);
    if (connection) {
      connection.list?.remove(connection);
      connection.response = res;
      res.on('finish', answered);
    }
    if (closing) res.setHeader('Connection', 'close');
  });
  server.on('connection', (socket: Socket) => {
    const address = canonicalAddress(socket.remoteAddress) ?? 'unknown';
    const holding = byAddress.get(address) ?? 0;
    if (holding >= perAddress) return void socket.destroy();
    const crowd = holding > A_FEW && holding * byAddress.size >= held.size;
    if (held.size >= limits.maxConnections && !madeRoom(waiting, kept, address, crowd)) return void socket.destroy();
    byAddress.set(address, holding + 1);
    const connection: Held = { socket, address, response: null, list: null, older: null, newer: null };
    held.set(socket, connection);
    waiting.push(connection);
    socket.once('close', () => {
      held.delete(socket);
      connection.list?.remove(connection);
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
