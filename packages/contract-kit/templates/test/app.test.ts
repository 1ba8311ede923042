import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { basePathsOf, listOperations, loadContract, UNMATCHED_HEADER } from 'contract-kit';
import { CONTRACT, createApp } from '../src/app.js';

const server = createServer();
beforeAll(async () => {
  server.on('request', (await createApp()).app);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

it('routes every operation of the contract', async () => {
  const contract = await loadContract(CONTRACT);
  const [base = ''] = basePathsOf(contract);
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  for (const op of listOperations(contract)) {
    const response = await fetch(`${origin}${base}${op.path.replace(/\{[^}]+\}/g, '1')}`, { method: op.method.toUpperCase() });
    // The headers tell: the body is not read (a streamed answer never ends).
    await response.body?.cancel();
    // The kit marks its own 404 and 405, those of a request no operation matched; any other
    // answer (a 401, a stub's 501, a handler's 404 for an unknown id) is the operation's.
    const unmatched = response.headers.get(UNMATCHED_HEADER);
    expect(unmatched, `${op.method.toUpperCase()} ${op.path} is not routed: ${response.status} ${unmatched}`).toBeNull();
  }
});
