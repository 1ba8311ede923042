import { spawn, type ChildProcess } from 'node:child_process';
import { connect } from 'node:net';
import { dirname, join } from 'node:path';
import { SPEC_PATH } from '../../src/contract/load-spec.js';
import { freePort } from '../../src/shared/free-port.js';

/** A Prism process listening on loopback. */
export interface PrismProcess {
  port: number;
  /** Stops Prism (SIGTERM) and waits for it to exit. */
  stop(): Promise<void>;
}

/** Options of {@link startPrism}. */
export interface PrismOptions {
  /** Where Prism's request log goes (its start-up lines are not passed on); `null` or absent drops it. */
  log?: ((line: string) => void) | null;
  /** How long to wait for Prism to start, in milliseconds. @default 30000 */
  startTimeoutMs?: number;
}

/**
 * Waits until Prism accepts TCP connections on `port`. A connection, not an HTTP request: a
 * request would be answered and logged by Prism as an error (no path of the contract is `/`).
 */
async function waitForPrism(child: ChildProcess, port: number, timeoutMs: number, output: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) {
      throw new Error(`Prism exited with code ${child.exitCode} before it was ready:\n${output()}`);
    }
    const up = await new Promise<boolean>((done) => {
      const socket = connect({ host: '127.0.0.1', port });
      socket.setTimeout(500);
      socket.once('connect', () => {
        socket.destroy();
        done(true);
      });
      socket.once('error', () => done(false));
      socket.once('timeout', () => {
        socket.destroy();
        done(false);
      });
    });
    if (up) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`Prism did not answer on port ${port} within ${timeoutMs} ms:\n${output()}`);
}

/**
 * Runs the Prism CLI of node_modules (`prism proxy …`, as `args` say: the validating proxy of test/support/prism-proxy.ts) on a
 * free loopback port and waits until it answers.
 */
export async function startPrism(args: string[], options: PrismOptions = {}): Promise<PrismProcess> {
  const port = await freePort();
  const prismBin = join(dirname(SPEC_PATH), 'node_modules', '.bin', 'prism');
  const child = spawn(prismBin, [...args, '--host', '127.0.0.1', '--port', String(port)], { stdio: ['ignore', 'pipe', 'pipe'] });
  let recent = '';
  // Prism's start-up lines (its `[CLI]` ones, which may come after it accepts connections) name
  // its own port, which is nobody's business but the proxy's: they are kept for the error
  // message should Prism fail to start, and only its request log is passed on.
  let ready = false;
  const onOutput = (chunk: Buffer) => {
    const text = chunk.toString();
    recent = (recent + text).slice(-4000);
    if (!options.log || !ready) return;
    for (const line of text.split('\n')) if (line.trim() && !line.includes('[CLI]')) options.log(line);
  };
  child.stdout?.on('data', onOutput);
  child.stderr?.on('data', onOutput);
  const stop = () =>
    new Promise<void>((done) => {
      if (child.exitCode !== null || child.signalCode !== null) return done();
      child.once('exit', () => done());
      child.kill('SIGTERM');
    });
  try {
    await waitForPrism(child, port, options.startTimeoutMs ?? 30_000, () => recent);
    ready = true;
  } catch (error) {
    await stop();
    throw error;
  }
  return { port, stop };
}
