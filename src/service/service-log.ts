import { pino, type Logger } from 'pino';

/** How long, at most, the process waits at its end for its last log lines to be written. */
const LAST_LINES_MS = 1_000;

/** The service's logger, and the one way its process ends. */
export interface ServiceLog {
  logger: Logger;
  /** Ends the process with `code` once the lines logged are written, or after LAST_LINES_MS without them. */
  exit: (code: number) => void;
}

/**
 * JSON lines on stdout through pino's asynchronous destination. At exit, pino writes what is
 * left synchronously and tries a failed write again until it succeeds, so a process whose
 * stdout reader went away (EPIPE) or stopped reading (a full pipe) would never end: here the
 * lines left get LAST_LINES_MS, and are then dropped.
 */
export function serviceLog(level: string): ServiceLog {
  const destination = pino.destination({ dest: 1, sync: false });
  // A service that cannot write its log keeps serving, as pino has it after EPIPE (stderr may
  // well be gone too, so nothing is said there).
  let failed = false;
  destination.on('error', () => (failed = true));
  const logger = pino({ level }, destination);
  return {
    logger,
    exit(code) {
      const end = () => {
        // Destroyed, it has nothing left for pino to write at exit.
        destination.destroy();
        process.exit(code);
      };
      if (failed) return end();
      destination.once('close', () => process.exit(code));
      destination.once('error', end);
      setTimeout(end, LAST_LINES_MS);
      destination.end();
    },
  };
}
