import { spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { parseDocument } from 'yaml';
import { startServer, type ServerProcess } from '../../scripts/support/server-process.js';
import { loadSpec } from '../../src/contract/load-spec.js';
import { freePort } from '../../src/shared/free-port.js';
import { RepositoryCopy, type Outcome } from '../designer/repository-copy.js';
import { ROOT } from '../support/run.js';
import { killAtEnd } from '../support/processes.js';

/**
 * The toolkit on a contract that has none of the Animal Store's operations: a copy of this
 * repository whose openapi.yaml is the Order Desk's (any-contract/openapi.yaml: listOrders and
 * createOrder under /v1, bearer keys). Generate, lint, the docs, check:breaking, the mock and the
 * service, each as a designer runs it in that copy.
 */
// At the version of the repository's own contract, so that the client package's pins on it
// (package.json, package-lock.json) stand: another version takes npm install, as a new major does.
const VERSION = loadSpec().info.version;
const FIXTURE = readFileSync(join(ROOT, 'test/toolkit/any-contract/openapi.yaml'), 'utf8').replace(
  /^ {2}version: .*$/m,
  `  version: ${VERSION}`,
);
const OPERATIONS = ['listOrders', 'createOrder'];
const ORDER = { item: 'cup', quantity: 6 };

/** Each step runs npm commands, each a process of its own: minutes on a loaded machine. */
const STEP_MS = 180_000;

let copy: RepositoryCopy;
beforeAll(async () => {
  copy = await RepositoryCopy.create();
  copy.write('openapi.yaml', FIXTURE);
  // A project of its own has released none of the Animal Store's contracts: check:breaking compares with git.
  rmSync(join(copy.dir, 'contracts'), { recursive: true });
  await copy.commit('the Order Desk contract');
}, STEP_MS);
afterAll(() => copy?.remove());

const show = (outcome: Outcome) => `exit ${outcome.code}\n--- stdout\n${outcome.stdout}\n--- stderr\n${outcome.stderr}`;

// In order: each step works on what the one before it left in the copy.
describe('the toolkit on a contract without the Animal Store’s operations', () => {
  it(
    'npm run generate writes the types, the handler map and a stub for each operation',
    async () => {
      const generated = await copy.npm('generate');
      expect(generated.code, show(generated)).toBe(0);
      for (const id of OPERATIONS) {
        expect(generated.stdout).toContain(`wrote src/service/http/handlers/${id}.ts (a stub answering 501 until you write it)`);
      }
      const handlers = readFileSync(join(copy.dir, 'generated/handlers.ts'), 'utf8');
      expect(handlers).toContain('export const handlers = { listOrders, createOrder } satisfies Handlers<Operations, Context>;');
      expect(readFileSync(join(copy.dir, 'packages/client/src/generated/openapi.ts'), 'utf8')).toMatch(/listOrders: \{/);
      const checked = await copy.npm('check:generated');
      expect(checked.code, show(checked)).toBe(0);
    },
    STEP_MS,
  );

  it(
    'npm run lint:contract passes it, and npm run docs renders its operations',
    async () => {
      const linted = await copy.npm('lint:contract');
      expect(linted.code, show(linted)).toBe(0);
      const docs = await copy.npm('docs');
      expect(docs.code, show(docs)).toBe(0);
      const page = readFileSync(join(copy.dir, 'build/docs/index.html'), 'utf8');
      expect(page).toContain('List orders');
      expect(page).toContain('Place an order');
    },
    STEP_MS,
  );

  it(
    'npm run check:breaking compares it with its last committed version',
    async () => {
      const committed = readFileSync(join(copy.dir, 'openapi.yaml'), 'utf8');
      const edit = (change: (contract: ReturnType<typeof parseDocument>) => void) => {
        copy.write('openapi.yaml', committed);
        copy.editContract(change);
      };
      try {
        edit((contract) =>
          contract.setIn(['components', 'schemas', 'Order', 'properties', 'note'], {
            type: 'string',
            maxLength: 200,
            description: 'A note.',
          }),
        );
        const added = await copy.npm('check:breaking');
        expect(added.code, show(added)).toBe(0);
        expect(added.stdout).toMatch(/with its last committed version/);
        expect(added.stdout).toMatch(/GET \/orders, POST \/orders +Schema added at .*properties\/note/);
        expect(added.stdout).toMatch(/✔ No breaking change/);

        edit((contract) => contract.setIn(['components', 'schemas', 'NewOrder', 'properties', 'quantity', 'maximum'], 500));
        const narrowed = await copy.npm('check:breaking');
        expect(narrowed.code, show(narrowed)).toBe(1);
        expect(narrowed.stdout).toMatch(/POST \/orders +Upper bound of `quantity` changed from '<= 1000' to '<= 500'/);
      } finally {
        copy.write('openapi.yaml', committed);
      }
    },
    STEP_MS,
  );

  it(
    'npm run mock answers its operations with their examples',
    async () => {
      const port = await freePort();
      const mock = spawn(process.execPath, ['--import', 'tsx', 'packages/contract-kit/src/cli/main.ts', 'mock', '--port', String(port)], {
        cwd: copy.dir,
        env: { ...process.env, NO_COLOR: '1' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      killAtEnd(mock);
      let output = '';
      mock.stdout.on('data', (c: Buffer) => (output += c.toString()));
      mock.stderr.on('data', (c: Buffer) => (output += c.toString()));
      const exited = new Promise<number | null>((done) => mock.once('exit', (code) => done(code)));
      try {
        // Prism starts in a few seconds; only a mock that never starts waits out the step.
        await expect.poll(() => output, { timeout: STEP_MS / 2, interval: 100 }).toContain('Press Ctrl+C to stop.');
        expect(output).toContain(`listening on http://localhost:${port}/v1`);
        const response = await fetch(`http://127.0.0.1:${port}/v1/orders`, { headers: { Authorization: 'Bearer any' } });
        expect(response.status).toBe(200);
        expect(response.headers.get('X-RateLimit-Limit')).toBe('60');
        expect(await response.json()).toEqual([
          { id: 'ord-1', item: 'teapot', quantity: 1 },
          { id: 'ord-2', item: 'cup', quantity: 6 },
        ]);
      } finally {
        mock.kill('SIGTERM');
      }
      expect(await exited).toBe(0);
    },
    STEP_MS,
  );

  describe('the service', () => {
    let service: ServerProcess;
    let key: string;
    beforeAll(async () => {
      // As a designer starts it: in development, on a new SQLite file, it issues a key and says what to try.
      service = await startServer({
        name: 'the service on the Order Desk contract',
        args: ['--import', 'tsx', join(copy.dir, 'src/service/main.ts')],
        env: { DATABASE_PATH: join(copy.dir, 'data/orders.db'), NODE_ENV: 'development', LOG_LEVEL: 'info' },
        probePath: '/readyz',
        keepStdout: true,
        onSpawn: killAtEnd,
      });
      // The banner may reach its pipe after the first answer reaches the probe (it is written in
      // the same turn as the listening line); only a missing banner waits out the step.
      await vi.waitFor(() => expect(service.output()).toContain('More keys:'), { timeout: STEP_MS / 2, interval: 50 });
      key = /Created a development key .*\n {2}(\S+)\n/.exec(service.output())?.[1] ?? '';
    }, STEP_MS);
    afterAll(() => service?.stop());

    it('starts, names each stub in one warning, and answers 501 not_implemented from each', async () => {
      const base = `http://localhost:${service.port}/v1`;
      expect(service.output()).toContain(`Order Desk API ${VERSION} at ${base} (NODE_ENV=development)`);
      expect(service.output()).toContain(
        `Try:\n  curl -H 'Authorization: Bearer ${key}' ${base}/orders\n` +
          `  curl -H 'Authorization: Bearer ${key}' -H 'Content-Type: application/json' -d '${JSON.stringify(ORDER)}' ${base}/orders\n`,
      );
      for (const [id, route] of [
        ['listOrders', 'GET /orders'],
        ['createOrder', 'POST /orders'],
      ]) {
        expect(service.output()).toContain(
          `${id} (${route}) is not implemented yet: it answers 501 until src/service/http/handlers/${id}.ts is written`,
        );
      }
      const auth = { Authorization: `Bearer ${key}` };
      const listed = await fetch(`${service.origin}/v1/orders`, { headers: auth });
      const created = await fetch(`${service.origin}/v1/orders`, {
        method: 'POST',
        headers: { ...auth, 'Content-Type': 'application/json' },
        body: JSON.stringify(ORDER),
      });
      for (const [id, response] of [
        ['listOrders', listed],
        ['createOrder', created],
      ] as const) {
        expect(response.status, id).toBe(501);
        expect(response.headers.get('X-RateLimit-Limit'), id).toBe('300');
        expect(await response.json()).toEqual({
          code: 'not_implemented',
          message: `${id} is not implemented yet.`,
          status: 501,
        });
      }
    });

    it('validates requests against that contract, and knows no route of the Animal Store', async () => {
      const auth = { Authorization: `Bearer ${key}` };
      const invalid = await fetch(`${service.origin}/v1/orders`, {
        method: 'POST',
        headers: { ...auth, 'Content-Type': 'application/json' },
        body: JSON.stringify({ ...ORDER, quantity: 0 }),
      });
      expect(invalid.status).toBe(400);
      expect(await invalid.json()).toMatchObject({ code: 'invalid_request', details: [{ field: 'body.quantity' }] });
      const pets = await fetch(`${service.origin}/v1/pets`, { headers: auth });
      expect(pets.status).toBe(404);
      const anonymous = await fetch(`${service.origin}/v1/orders`);
      expect(anonymous.status).toBe(401);
    });
  });
});
