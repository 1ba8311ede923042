import type { Server } from 'node:http';
import type { HeldConnections } from './connection-cap.js';
import type { Listening } from './listeners.js';

/** Stops a server: see Served.stop. */
export type Stop = (options?: { graceMs?: number }) => Promise<void>;

/** What a stop runs, and for how long. */
export interface StopPlan {
  shutdownTimeoutMs: number;
  lingerMs: number;
  /** Run as the stop begins (a readiness check may answer 503 from now on). */
  onStopping?: () => void;
  /** Run once the server has stopped: close what the app opened. */
  onStop?: () => void | Promise<void>;
  onWarning: (message: string) => void;
}

/** How often a lingering stop looks whether any connection is still open. */
const LINGER_CHECK_MS = 20;

/**
 * The stop of a served server: runs onStopping, lingers, stops listening and closes idle
 * connections, answers those in flight, then runs onStop. Past `graceMs` the connections still
 * open are closed.
 *
 * Why it lingers: Node's server.close() closes at once every connection without a request in
 * progress, and a connection whose next request is on its way, or read by the system but not yet
 * by Node, is one of them: that request would get a reset, and its client could not tell whether
 * it was carried out. So the server goes on answering for up to lingerMs, each answer closing its
 * connection, and stops listening once no connection is open or the linger is over.
 */
export function gracefulStop(server: Server, connections: HeldConnections, listening: Listening, plan: StopPlan): Stop {
  let stopped: Promise<void> | null = null;
  let closed = false;
  let force: NodeJS.Timeout | undefined;
  let endLinger = () => {};
  let closing: Promise<void> | null = null;
  // Stops listening, closes the idle connections, and those that become idle (a response begun
  // before the stop may keep its connection alive) until the last one is gone.
  const closeServer = () =>
    (closing ??= new Promise<void>((resolve) => {
      const sweep = setInterval(() => server.closeIdleConnections(), 100);
      void listening.close().then(() => {
        closed = true;
        clearInterval(sweep);
        clearTimeout(force);
        resolve();
      });
      server.closeIdleConnections();
    }));
  return ({ graceMs = plan.shutdownTimeoutMs } = {}) => {
    // Within grace: finish what is in flight; past it (or on a later, shorter stop): cut.
    clearTimeout(force);
    force = setTimeout(() => {
      if (closed) return;
      plan.onWarning(`requests still in flight ${graceMs} ms after the stop began: their connections are closed`);
      endLinger();
      void closeServer();
      server.closeAllConnections();
    }, graceMs);
    force.unref();
    if (stopped) return stopped;
    plan.onStopping?.();
    connections.closeAfterResponses();
    const lingering = new Promise<void>((resolve) => {
      if (plan.lingerMs <= 0) return resolve();
      const check = setInterval(() => connections.open === 0 && endLinger(), LINGER_CHECK_MS);
      const timer = setTimeout(() => endLinger(), Math.min(plan.lingerMs, graceMs));
      endLinger = () => {
        clearInterval(check);
        clearTimeout(timer);
        resolve();
      };
    });
    stopped = lingering.then(closeServer).then(() => plan.onStop?.());
    return stopped;
  };
}

/** How {@link stopOnSignals} tells of a signal, which signals it takes, and how it ends the process. */
export interface SignalOptions {
  /** @default ['SIGTERM', 'SIGINT'] */
  signals?: readonly NodeJS.Signals[];
  /** Told of each signal; `again` when the server was already stopping. */
  onSignal?: (signal: NodeJS.Signals, again: boolean) => void;
  /** Ends the process once stopped: 0, or 1 when the stop (its onStop) failed. @default process.exit */
  exit?: (code: number) => void;
}

/**
 * Stops on the first of the signals (however the process was started: npm, node, a container's
 * PID 1), then exits; a second signal while it stops cuts the wait, closing the connections of
 * requests in flight at once.
 */
export function stopOnSignals(served: { stop: Stop }, options: SignalOptions = {}): void {
  const { onSignal, exit = (code: number) => process.exit(code), signals = ['SIGTERM', 'SIGINT'] } = options;
  let signalled = false;
  const handle = (signal: NodeJS.Signals) => {
    onSignal?.(signal, signalled);
    if (signalled) return void served.stop({ graceMs: 0 });
    signalled = true;
    served.stop().then(
      () => exit(0),
      (error: unknown) => {
        console.error('the stop failed:', error);
        exit(1);
      },
    );
  };
  for (const signal of signals) process.on(signal, handle);
}
