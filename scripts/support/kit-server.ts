/**
 * A server of contract-kit with the kit's defaults (a 1 MiB body limit, above all), serving the
 * kit's bulk-orders-3.1.yaml fixture as the kit's README serves a contract: part 8 of `npm run
 * adversarial` measures what a request body costs it. Listens on PORT once its validators are compiled.
 */
import { createServer } from 'node:http';
import { join } from 'node:path';
import express from 'express';
import { closeUnreadBody, contractServer, loadContract } from 'contract-kit';
import { PACKAGE_ROOT } from '../../src/shared/package-root.js';

let orders = 0;
const kit = contractServer({
  contract: await loadContract(join(PACKAGE_ROOT, 'packages', 'contract-kit', 'test', 'fixtures', 'bulk-orders-3.1.yaml')),
  handlers: {
    countOrders: () => ({ status: 200, body: orders }),
    addOrder: ({ body }) => {
      orders++;
      return { status: 201, body: (body as { items: unknown[] }).items.length };
    },
  },
});
const app = express();
app.use(kit.router);
app.use(kit.notFound);
app.use(kit.errorHandler);
const server = createServer(app);
server.on('request', closeUnreadBody);
// Listening once every validator is compiled, so that compiling them costs no measured request.
await kit.ready;
server.listen(Number(process.env.PORT), '127.0.0.1');
process.on('SIGTERM', () => server.close());
