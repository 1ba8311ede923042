/**
 * contract-kit on a large synthetic contract of RESOURCES × 5 operations (large-contract.ts), every
 * operation answering a valid body, served with serve(); `/healthz` answers once it listens and
 * `/readyz` once every operation's validator is compiled (503 before), as an adopter exposes the
 * kit's readiness. WARM_UP picks the kit's warmUp (default: the kit's).
 */
import express from 'express';
import { contractServer, serve, type AnyHandler, type WarmUp } from 'contract-kit';
import { largeContract, OPERATIONS_PER_RESOURCE, storedResource } from '../large-contract.js';

const resources = Number(process.env.RESOURCES ?? 130);
const contract = largeContract(resources);
const handlers: Record<string, AnyHandler> = {};
for (let i = 0; i < resources; i++) {
  const body = storedResource(i);
  handlers[`listResources${i}`] = () => ({ status: 200, body: [body] });
  handlers[`createResource${i}`] = () => ({ status: 201, body });
  handlers[`getResource${i}`] = () => ({ status: 200, body });
  handlers[`replaceResource${i}`] = () => ({ status: 200, body });
  handlers[`deleteResource${i}`] = () => ({ status: 204 });
}
const kit = contractServer({
  contract,
  handlers,
  onWarning: (message) => console.warn(message),
  warmUp: (process.env.WARM_UP as WarmUp | undefined) ?? undefined,
});
let ready = false;
void kit.ready.then(() => (ready = true));
const app = express();
app.get('/healthz', (_req, res) => void res.json({ status: 'ok' }));
app.get('/readyz', (_req, res) => void res.status(ready ? 200 : 503).json({ ...kit.progress(), ready }));
app.use(kit.router);
app.use(kit.errorHandler);
await serve(app, { port: Number(process.env.PORT), host: '127.0.0.1', ready: kit.ready, onInfo: (m) => console.warn(m) });
if (kit.operations.length !== resources * OPERATIONS_PER_RESOURCE) throw new Error('the large contract lost operations');
