import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { binOf } from '../cli/tools.js';
import type { OpenApiDocument } from '../contract/document.js';

/** Prism, answering a document on a loopback port of its own. */
export interface PrismProcess {
  port: number;
  /** Stops Prism and removes the document it was given. */
  stop(): Promise<void>;
}

/** How long Prism may take to start: it reads and resolves the whole document first. */
const START_TIMEOUT_MS = 120_000;

/**
 * Starts Prism's mock (`prism mock`, with `--dynamic` for values made from the schemas) on
 * `document`, written to a folder of its own, on a free loopback port; resolves once it says it
 * listens. Its request log is not passed on: the mock logs what its client got.
 */
export async function startPrism(document: OpenApiDocument, dynamic: boolean): Promise<PrismProcess> {
  const dir = mkdtempSync(join(tmpdir(), 'contract-kit-mock-'));
  const file = join(dir, 'contract.json');
  writeFileSync(file, JSON.stringify(document));
  const args = [
    binOf('@stoplight/prism-cli', 'prism'),
    'mock',
    file,
    '--host',
    '127.0.0.1',
    '--port',
    '0',
    ...(dynamic ? ['--dynamic'] : []),
  ];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const stop = () =>
    new Promise<void>((done) => {
      const removed = () => {
        rmSync(dir, { recursive: true, force: true });
        done();
      };
      if (child.exitCode !== null || child.signalCode !== null) return removed();
      child.once('exit', removed);
      child.kill('SIGTERM');
    });
  let output = '';
  try {
    const port = await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`Prism did not start within ${START_TIMEOUT_MS / 1000} s:\n${output.slice(-2000)}`)),
        START_TIMEOUT_MS,
      );
      const seen = (chunk: Buffer) => {
        output += chunk.toString();
        const listening = /Prism is listening on https?:\/\/[^:\s]+:(\d+)/.exec(output);
        if (listening) {
          clearTimeout(timer);
          resolve(Number(listening[1]));
        }
      };
      child.stdout.on('data', seen);
      child.stderr.on('data', seen);
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`Prism exited (${code}) before it listened:\n${output.slice(-2000)}`));
      });
    });
    child.stdout.removeAllListeners('data').resume();
    child.stderr.removeAllListeners('data').resume();
    return { port, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
