import { fileURLToPath } from 'node:url';
import express from 'express';
import { contractServer, loadContract } from 'contract-kit';
import { handlers } from '../generated/handlers.js';
import { context } from './context.js';
import { errors } from './errors.js';
import { security } from './security.js';

/** The contract this app serves. */
export const CONTRACT = fileURLToPath(new URL('../__SPEC__', import.meta.url));

/**
 * The Express app serving the contract: every operation routed, checked and answered as it says;
 * `ready`, which resolves once every operation's validator is compiled (in the background); and
 * `answerOf`, the contract's error body for a request Node cannot parse (see serve); and
 * `endStreams`, which ends the streamed answers being sent when the server stops.
 */
export async function createApp() {
  const kit = contractServer({
    contract: await loadContract(CONTRACT),
    label: '__SPEC__',
    handlers,
    security,
    errors,
    // A new object per request: the kit adds the request's caller and signal to it.
    context: () => ({ ...context }),
    // A 500 says nothing to the client: its reason (a handler's error, an answer the contract does not allow) is logged here.
    // A stub's 501 is named once at start, not on every request.
    onError: (error, problem, req) => {
      if (problem.status >= 500 && problem.code !== 'not_implemented')
        console.error(`${req.method} ${req.originalUrl} → ${problem.status}:`, error);
    },
  });
  console.log(`__SPEC__: ${kit.errorBodies}`);
  const app = express();
  app.disable('x-powered-by');
  app.use(kit.router);
  app.use(kit.notFound);
  app.use(kit.errorHandler);
  return { app, ready: kit.ready, answerOf: kit.answerOf, endStreams: kit.endStreams };
}
