import { spawn, type ChildProcess } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { SPEC_PATH } from '../spec/load-spec.js';

/** A Prism process listening on loopback. */
export interface PrismProcess {
  port: number;
  /** Stops Prism (SIGTERM) and waits for it to exit. */
  stop(): Promise<void>;
}

/** Options of {@link startPrism}. */
export interface PrismOptions {
  /** Where Prism's own log lines go; `null` or absent drops them. */
  log?: ((line: string) => void) | null;
  /** How long to wait for Prism to start, in milliseconds. @default 30000 */
  startTimeoutMs?: number;
}

/** Finds a free TCP port on the loopback interface. */
export async function freePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createNetServer();
    server.once('error', reject);
    server.listen(0, host, () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolvePort(port));
    });
  });
}

async function waitForPrism(child: ChildProcess, port: number, timeoutMs: number, output: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) {
      throw new Error(`Prism exited with code ${child.exitCode} before it was ready:\n${output()}`);
    }
    const up = await new Promise<boolean>((done) => {
      const req = httpRequest({ host: '127.0.0.1', port, path: '/', method: 'HEAD', timeout: 500 }, (res) => {
        res.resume();
        done(true);
      });
      req.on('error', () => done(false));
      req.on('timeout', () => {
        req.destroy();
        done(false);
      });
      req.end();
    });
    if (up) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`Prism did not answer on port ${port} within ${timeoutMs} ms:\n${output()}`);
}

/**
 * Runs the Prism CLI of node_modules (`prism mock …` or `prism proxy …`, as `args` say) on a
 * free loopback port and waits until it answers.
 */
export async function startPrism(args: string[], options: PrismOptions = {}): Promise<PrismProcess> {
  const port = await freePort('127.0.0.1');
  const prismBin = join(dirname(SPEC_PATH), 'node_modules', '.bin', 'prism');
  const child = spawn(prismBin, [...args, '--host', '127.0.0.1', '--port', String(port)], { stdio: ['ignore', 'pipe', 'pipe'] });
  let recent = '';
  const onOutput = (chunk: Buffer) => {
    const text = chunk.toString();
    recent = (recent + text).slice(-4000);
    if (options.log) for (const line of text.split('\n')) if (line.trim()) options.log(line);
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
  } catch (error) {
    await stop();
    throw error;
  }
  return { port, stop };
}
