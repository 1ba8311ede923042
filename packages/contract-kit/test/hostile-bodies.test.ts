import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import express, { type ErrorRequestHandler, type RequestHandler } from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contractServer, DEFAULT_BODY_LIMIT_BYTES, loadContract, type AnyHandler } from 'contract-kit';
import { serve } from './serve.js';

// What a JSON body of up to the kit's default limit (1 MiB) costs a server of the kit: the CPU
// time of this process, where the server runs, per request.

type Served = Awaited<ReturnType<typeof serve>>;

const handlers: Record<string, AnyHandler> = {
  countOrders: () => ({ status: 200, body: 0 }),
  addOrder: ({ body }) => ({ status: 201, body: (body as { items: unknown[] }).items.length }),
};

const post = (served: Pick<Served, 'fetch'>, body: string) =>
  served.fetch('/orders', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body });

/** `unit` repeated, comma-separated, between `open` and `close`, as many times as fit in the default limit. */
const fill = (open: string, unit: string, close: string) =>
  `${open}${Array.from({ length: Math.floor((DEFAULT_BODY_LIMIT_BYTES - open.length - close.length + 1) / (unit.length + 1)) }, () => unit).join(',')}${close}`;

/** An ordinary body as large as the limit allows: items of a name and a count. */
const ORDINARY = fill('{"items":[', '{"name":"Rex the dog","count":12}', ']}');

/** CPU milliseconds of this process per request, over `times` requests after one to warm up. */
async function cpuMsPerRequest(send: () => Promise<Response>, times = 4): Promise<number> {
  await (await send()).arrayBuffer();
  const before = process.cpuUsage();
  for (let i = 0; i < times; i++) await (await send()).arrayBuffer();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000 / times;
}

const nested = (depth: number, inner = '') => `${'['.repeat(depth)}${inner}${']'.repeat(depth)}`;

describe('a JSON body nested deeper than maxDepth', () => {
  let orders: Served;
  beforeAll(async () => {
    orders = await serve('bulk-orders-3.1.yaml', { handlers });
  });
  afterAll(() => orders.close());

  it('is refused with a 400 that names the limit, 64 by default, in the shape of every refusal', async () => {
    const refused = await post(orders, nested(65));
    expect(refused.status).toBe(400);
    expect(refused.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
    expect(await refused.json()).toMatchObject({
      status: 400,
      code: 'invalid_request',
      detail: 'The request body nests arrays and objects more than 64 deep.',
      errors: [{ detail: 'nests arrays and objects more than 64 deep', pointer: '' }],
    });
    // An order, its items, an item: 3 deep, and 61 arrays more in a property of the item.
    expect((await post(orders, `{"items":[{"name":"Rex","count":1,"more":${nested(61)}}]}`)).status).toBe(201);
    expect((await post(orders, `{"items":[{"name":"Rex","count":1,"more":${nested(62)}}]}`)).status).toBe(400);
  });

  it('is refused before it is parsed: 524,287 nested arrays (1 MiB) cost about what an ordinary body of that size costs', async () => {
    const deep = await cpuMsPerRequest(() => post(orders, nested(DEFAULT_BODY_LIMIT_BYTES / 2 - 1)));
    const ordinary = await cpuMsPerRequest(() => post(orders, ORDINARY));
    // Read and refused, it costs what an ordinary body's bytes cost (the two were within 10 % of each other here);
    // parsed, it cost 25 times as much (424 and 429 ms against 17 and 18 ms with maxDepth: Infinity).
    expect(deep, `nested arrays ${deep.toFixed(1)} ms, ordinary body ${ordinary.toFixed(1)} ms`).toBeLessThan(3 * ordinary);
  });

  it('holds a strange key or a string of brackets and escaped quotes for what it is', async () => {
    const tricky = `{"items":[],"[[[":"\\\\","\\"[":"${nested(40)}\\"${nested(40)}","x":${nested(60)}}`;
    expect((await post(orders, tricky)).status).toBe(201);
  });
});

describe('the maxDepth option', () => {
  it('bounds how deep a body may nest, and Infinity bounds it not at all', async () => {
    const shallow = await serve('bulk-orders-3.1.yaml', { handlers, maxDepth: 3 });
    const unbounded = await serve('bulk-orders-3.1.yaml', { handlers, maxDepth: Infinity });
    try {
      expect((await post(shallow, '{"items":[{"name":"Rex","count":1}]}')).status).toBe(201);
      const refused = await post(shallow, '{"items":[{"name":"Rex","count":1,"tags":[]}]}');
      expect(await refused.json()).toMatchObject({ status: 400, errors: [{ detail: 'nests arrays and objects more than 3 deep' }] });
      expect((await post(unbounded, `{"items":[],"more":${nested(5000)}}`)).status).toBe(201);
    } finally {
      await Promise.all([shallow.close(), unbounded.close()]);
    }
  });
});

describe('an object with more properties than maxProperties', () => {
  let orders: Served;
  beforeAll(async () => {
    orders = await serve('bulk-orders-3.1.yaml', { handlers });
  });
  afterAll(() => orders.close());

  it('is refused naming where it is', async () => {
    const keys = (n: number) => Array.from({ length: n }, (_, i) => `"k${i}":1`).join(',');
    const refused = await post(orders, `{"items":[{"name":"Rex","count":1},{${keys(257)}}]}`);
    expect(await refused.json()).toMatchObject({ status: 400, errors: [{ detail: 'has more than 256 properties', pointer: '/items/1' }] });
  });

  it('is refused before it is parsed: 87,000 keys or one key 131,000 times (1 MiB) cost less than an ordinary body', async () => {
    let key = 0;
    const keys = fill('{', '"k______":1', '}').replace(/______/g, () => String(key++).padStart(6, '0'));
    const sameKey = fill('{', '"k":1', '}');
    const ordinary = await cpuMsPerRequest(() => post(orders, ORDINARY));
    for (const body of [keys, sameKey]) {
      const refused = await cpuMsPerRequest(() => post(orders, body));
      expect(refused, `${refused.toFixed(1)} ms, ordinary body ${ordinary.toFixed(1)} ms`).toBeLessThan(ordinary);
    }
  });
});

describe('a body the validator refuses value by value', () => {
  let orders: Served;
  beforeAll(async () => {
    orders = await serve('bulk-orders-3.1.yaml', { handlers });
  });
  afterAll(() => orders.close());

  /** A body of `count` empty items: two wrong values each. */
  const emptyItems = (count: number) => `{"items":[${Array.from({ length: count }, () => '{}').join(',')}]}`;
  const pointers = async (response: Response) =>
    ((await response.json()) as { errors: { pointer: string }[] }).errors.map((e) => e.pointer);

  it('is refused naming every wrong value (10 at most) up to allErrorsUpToBytes, 16 KiB by default, and its first above', async () => {
    const small = emptyItems(5_000);
    expect(small.length).toBeLessThanOrEqual(16 * 1024);
    expect(await pointers(await post(orders, small))).toEqual(
      ['/items/0/', '/items/1/', '/items/2/', '/items/3/', '/items/4/'].flatMap((item) => [`${item}name`, `${item}count`]),
    );
    expect(await pointers(await post(orders, emptyItems(6_000)))).toEqual(['/items/0/name']);
  });

  it('costs about what an ordinary body of its size does: 349,521 empty items (1 MiB) at most 3 times', async () => {
    const empty = fill('{"items":[', '{}', ']}');
    const refused = await cpuMsPerRequest(() => post(orders, empty));
    const ordinary = await cpuMsPerRequest(() => post(orders, ORDINARY));
    expect(refused, `empty items ${refused.toFixed(1)} ms, ordinary body ${ordinary.toFixed(1)} ms`).toBeLessThan(3 * ordinary);
  });

  it('costs the kit little beyond the validator where every wrong value is reported: of 100,000 (50,000 empty items) it reads the first', async () => {
    // CPU time from the validate step to the validator's refusal, and from there to the answer.
    const cpu = () => {
      const { user, system } = process.cpuUsage();
      return user + system;
    };
    const marks = { validate: 0, refused: 0, answered: 0 };
    const markValidate: RequestHandler = (_req, _res, next) => ((marks.validate = cpu()), next());
    const markRefused: ErrorRequestHandler = (error, _req, _res, next) => ((marks.refused = cpu()), next(error));
    const kit = contractServer({
      contract: await loadContract(fileURLToPath(new URL('./fixtures/bulk-orders-3.1.yaml', import.meta.url))),
      handlers,
      allErrorsUpToBytes: Infinity,
      steps: { beforeValidation: () => ({ markValidate }) },
      onError: () => (marks.answered = cpu()),
    });
    const app = express();
    app.use(kit.router, markRefused, kit.errorHandler);
    const server = createServer(app).listen(0, '127.0.0.1');
    await once(server, 'listening');
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const send = () => post({ fetch: (path, init) => fetch(`${origin}${path}`, init) }, emptyItems(50_000));
      await (await send()).arrayBuffer();
      const refused = await send();
      expect(await pointers(refused)).toEqual(
        ['/items/0/', '/items/1/', '/items/2/', '/items/3/', '/items/4/'].flatMap((item) => [`${item}name`, `${item}count`]),
      );
      const validator = (marks.refused - marks.validate) / 1000;
      const kitShare = (marks.answered - marks.refused) / 1000;
      expect(kitShare, `validator ${validator.toFixed(1)} ms, the kit's answer ${kitShare.toFixed(1)} ms`).toBeLessThan(validator / 10);
    } finally {
      server.close();
      server.closeAllConnections();
    }
  });
});
