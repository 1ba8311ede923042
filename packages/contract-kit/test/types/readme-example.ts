// The README's example, checked by `npm run typecheck` (never run): the README shows code that compiles.
import express from 'express';
import { contractServer, loadContract, serve, serveOptionsFromEnv } from 'contract-kit';

const kit = contractServer({
  contract: await loadContract('openapi.yaml'),
  handlers: {
    // One per operation, by its operationId (see "Names" for the others).
    listBooks: () => ({ status: 200, body: [{ title: 'Emma', copies: 3 }] }),
    addBook: ({ body }, { caller }) => ({ status: 201, body: { ...(body as object), addedBy: caller } }),
  },
  security: {
    // One verifying function per security scheme of the contract, by its name.
    basicAuth: (credentials) =>
      'password' in credentials && credentials.password === process.env.PASSWORD ? { caller: credentials.username } : undefined,
    apiKey: (credentials) => ('key' in credentials && credentials.key === process.env.API_KEY ? { caller: 'robot' } : undefined),
  },
});

const app = express();
app.use(kit.router); // routes the contract's paths under each server's path; 404 and 405 for the rest of them
app.use(kit.notFound); // 404 for any other path
app.use(kit.errorHandler); // every refusal and failure in the contract's error shape
// PORT (3000), a stop bounded on SIGTERM, unparsable requests in the contract's error body, and a line once
// every validator is compiled (see serve, and Ready)
await serve(app, { ...serveOptionsFromEnv(process.env), ready: kit.ready, answerOf: kit.answerOf });
