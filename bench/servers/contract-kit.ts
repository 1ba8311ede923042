/**
 * contract-kit on a synthetic contract of PATHS paths (synthetic-contract.ts): every operation
 * routed and validated (requests and responses), the lists answering the bench's 20 animals.
 */
import { createServer } from 'node:http';
import express from 'express';
import { contractServer } from 'contract-kit';
import { pathsFromEnvironment, SYNTHETIC_BODY, syntheticContract } from '../synthetic-contract.js';

const paths = pathsFromEnvironment();
const contract = syntheticContract(paths);
const handlers = Object.fromEntries(
  Array.from({ length: paths / 2 }, (_, i) => [`listThings${i}`, () => ({ status: 200, body: SYNTHETIC_BODY })]),
);
const kit = contractServer({ contract, handlers, onWarning: () => undefined });
const app = express();
app.use(kit.router);
app.use(kit.errorHandler);
createServer(app).listen(Number(process.env.PORT), '127.0.0.1');
