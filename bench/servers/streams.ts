/**
 * contract-kit serving a small OpenAPI 3.2 contract of two streamed answers, with serve(): a feed
 * of server-sent events (`GET /feed`: each client gets an event every TICK_MS, checked against
 * its itemSchema) and a JSON Lines export of `count` items (`GET /export`). No cap on connections
 * from one address: the bench opens a thousand from one.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import express from 'express';
import { contractServer, parseContract, serve, type AnyHandler } from 'contract-kit';

const TICK_MS = Number(process.env.TICK_MS ?? 1000);

const contract = parseContract(
  `openapi: 3.2.0
info: { title: Streams, version: 1.0.0 }
paths:
  /feed:
    get:
      operationId: follow
      responses:
        '200':
          description: An event every tick.
          content:
            text/event-stream:
              itemSchema:
                type: object
                required: [data]
                properties:
                  id: { type: string }
                  event: { type: string, enum: [tick] }
                  data: { type: string, contentMediaType: application/json, contentSchema: { $ref: '#/components/schemas/Tick' } }
  /export:
    get:
      operationId: exportItems
      parameters:
        - { name: count, in: query, required: true, schema: { type: integer, minimum: 1, maximum: 10000000 } }
      responses:
        '200':
          description: The items, one a line.
          content:
            application/jsonl:
              itemSchema: { $ref: '#/components/schemas/Tick' }
components:
  schemas:
    Tick:
      type: object
      additionalProperties: false
      required: [n, at]
      properties:
        n: { type: integer, minimum: 0 }
        at: { type: string, maxLength: 40 }
`,
  'streams.yaml',
);

const handlers: Record<string, AnyHandler> = {
  follow: (_input, { signal }) => ({
    status: 200,
    body: (async function* () {
      for (let n = 0; !signal.aborted; n++) {
        yield { id: String(n), event: 'tick', data: JSON.stringify({ n, at: new Date().toISOString() }) };
        await sleep(TICK_MS, undefined, { signal }).catch(() => undefined);
      }
    })(),
  }),
  exportItems: ({ query }) => ({
    status: 200,
    body: (function* () {
      const at = new Date().toISOString();
      for (let n = 0; n < (query.count as number); n++) yield { n, at };
    })(),
  }),
};

const kit = contractServer({ contract, handlers, onWarning: (message) => console.warn(message) });
const app = express();
app.get('/healthz', (_req, res) => void res.json({ status: 'ok' }));
app.use(kit.router);
app.use(kit.errorHandler);
await serve(app, {
  port: Number(process.env.PORT),
  host: '127.0.0.1',
  ready: kit.ready,
  maxConnectionsPerAddress: 0,
  onStopping: kit.endStreams,
  onInfo: (m) => console.warn(m),
});
