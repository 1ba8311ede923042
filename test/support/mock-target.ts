import { spawn } from 'node:child_process';
import type { ContractTarget, Scenario } from '../contract/cases.js';
import { killAtEnd } from './processes.js';
import { ROOT } from './run.js';

/** `npm run mock` running: contract-kit mock with contract-kit.config.ts. */
export interface MockServer {
  /** Base URL of the API, with its base path (`http://localhost:4010/v1`). */
  url: string;
  /** Everything it printed so far. */
  output(): string;
  close(): Promise<void>;
}

/** Starts the mock as `npm run mock` does (the kit's command, from the repository's root), on a free port. */
export async function startMockForTests(args: string[] = []): Promise<MockServer> {
  const main = `${ROOT}packages/contract-kit/src/cli/main.ts`;
  const child = spawn(process.execPath, ['--import', 'tsx', main, 'mock', '--port', '0', ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  killAtEnd(child);
  let output = '';
  child.stdout.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr.on('data', (c: Buffer) => (output += c.toString()));
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  const url = await new Promise<string>((resolve, reject) => {
    const seen = () => {
      const listening = /listening on (\S+)/.exec(output);
      if (listening) resolve(listening[1]!);
    };
    child.stdout.on('data', seen);
    void exited.then(() => reject(new Error(`the mock ended before it listened:\n${output}`)));
  });
  return {
    url,
    output: () => output,
    close: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/** The mock as a contract target: scenarios it cannot reach by itself are asked for with `Prefer`. */
export function mockTarget(baseUrl: string): ContractTarget {
  const auth = { Authorization: 'Bearer as_prod_mock' };
  const headers: Record<Scenario, Record<string, string>> = {
    authorized: auth,
    unauthenticated: {},
    notFound: { ...auth, Prefer: 'code=404' },
    rateLimited: { ...auth, Prefer: 'code=429, example=RateLimitedExample' },
  };
  return { baseUrl, headersFor: (scenario) => Promise.resolve(headers[scenario]) };
}
