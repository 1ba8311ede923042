/**
 * Peer at scale: Express 5 with express-openapi-validator as its README shows, on the synthetic
 * contract of PATHS paths (synthetic-contract.ts), one Express route per list path answering the
 * bench's 20 animals. The validator checks parameters and response bodies.
 */
import express, { type ErrorRequestHandler } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import { pathsFromEnvironment, SYNTHETIC_BODY, syntheticContract } from '../synthetic-contract.js';

const contract = syntheticContract(pathsFromEnvironment());
const app = express();
app.use(express.json());
app.use(OpenApiValidator.middleware({ apiSpec: contract as never, validateRequests: true, validateResponses: true }));
for (const path of Object.keys(contract.paths!)) {
  if (!path.includes('{')) {
    app.get(`/v1${path}`, (_req, res) => {
      res.json(SYNTHETIC_BODY);
    });
  }
}
// Express takes a function of four parameters, and only such a one, for an error handler (`_next` is unused).
const onError: ErrorRequestHandler = (error: { status?: number; message: string }, _req, res, _next) => {
  res.status(error.status ?? 500).json({ message: error.message });
};
app.use(onError);
app.listen(Number(process.env.PORT), '127.0.0.1');
