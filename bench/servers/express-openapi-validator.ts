/**
 * Peer: Express 5 with express-openapi-validator mounted as its README shows (`express.json()`,
 * then `OpenApiValidator.middleware` with request and response validation), one handler
 * answering listPets with the bench's 20 animals. The validator checks the bearer header's
 * presence (its default security check), parameters and the response body.
 */
import express, { type ErrorRequestHandler } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import { peerContract } from './peer-contract.js';
import { firstAnimals } from '../animals.js';

const animals = firstAnimals(20);
const app = express();
app.use(express.json());
app.use(OpenApiValidator.middleware({ apiSpec: peerContract() as never, validateRequests: true, validateResponses: true }));
app.get('/v1/pets', (_req, res) => {
  res.json(animals);
});
// Express takes a function of four parameters, and only such a one, for an error handler (`_next` is unused).
const onError: ErrorRequestHandler = (error: { status?: number; message: string }, _req, res, _next) => {
  res.status(error.status ?? 500).json({ message: error.message });
};
app.use(onError);
app.listen(Number(process.env.PORT), '127.0.0.1');
