import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import express from 'express';
import { closeUnreadBody, contractServer, loadContract, type ContractServerOptions } from 'contract-kit';

/** A fixture contract's path. */
const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));

type ServeOptions = Omit<ContractServerOptions, 'contract'> & {
  bodyLimitBytes?: number;
  /** Changes the fixture's document before it is served. */
  edit?: (contract: Awaited<ReturnType<typeof loadContract>>) => void;
};

/** An app serving a fixture contract with the kit, on a free loopback port, as the kit's README shows. */
export async function serve(name: string, options: ServeOptions) {
  const served = await serveContracts([[name, options]]);
  return { ...served, kit: served.kits[0]! };
}

/**
 * An app serving several fixture contracts, as the kit's README shows: every router, then the
 * last contract's notFound and errorHandler.
 */
export async function serveContracts(contracts: readonly (readonly [name: string, options: ServeOptions])[]) {
  const warnings: string[] = [];
  const errors: unknown[] = [];
  const kits = await Promise.all(
    contracts.map(async ([name, { edit, ...options }]) => {
      const contract = await loadContract(fixture(name));
      edit?.(contract);
      return contractServer({
        contract,
        label: name,
        onWarning: (message) => warnings.push(message),
        onError: (error, problem) => {
          if (problem.status === 500) errors.push(error);
        },
        ...options,
      });
    }),
  );
  const app = express();
  for (const kit of kits) app.use(kit.router);
  app.use(kits.at(-1)!.notFound);
  app.use(kits.at(-1)!.errorHandler);
  const limit = Math.max(...contracts.map(([, options]) => options.bodyLimitBytes ?? 1024 * 1024));
  // As src/server.ts of contract-kit init makes it: a request without Host reaches the app.
  const server: Server = createServer({ requireHostHeader: false }, app);
  server.on('request', (req, res) => closeUnreadBody(req, res, limit));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    kits,
    warnings,
    /** Errors answered with a 500, for a test to show. */
    errors,
    fetch: (path: string, init?: RequestInit) => fetch(`${origin}${path}`, init),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** `Basic` credentials for a user and password. */
export const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
