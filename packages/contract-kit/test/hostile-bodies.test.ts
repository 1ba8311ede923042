import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DEFAULT_BODY_LIMIT_BYTES, type AnyHandler } from 'contract-kit';
import { serve } from './serve.js';

// How a server of the kit takes the nastiest JSON bodies of up to its default limit (1 MiB). What
// each costs in CPU time, next to an ordinary body of as many bytes, is measured by part 8 of
// `npm run adversarial` (scripts/kit-bodies.ts), not here: a test that times it fails on a busy machine.

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

/**
 * The lengths of the texts JSON.parse was given while `send` was answered (the server runs in
 * this process), and the answer's status.
 */
async function parsedLengths(send: () => Promise<Response>): Promise<{ status: number; lengths: number[] }> {
  const parse = vi.spyOn(JSON, 'parse');
  try {
    const answer = await send();
    await answer.arrayBuffer();
    return { status: answer.status, lengths: parse.mock.calls.map(([text]) => String(text).length) };
  } finally {
    parse.mockRestore();
  }
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

  it('is refused before JSON.parse builds it: 524,287 nested arrays (1 MiB), which maxDepth: Infinity parses', async () => {
    const deep = nested(DEFAULT_BODY_LIMIT_BYTES / 2 - 1);
    expect(await parsedLengths(() => post(orders, deep))).toEqual({ status: 400, lengths: [] });
    const unbounded = await serve('bulk-orders-3.1.yaml', { handlers, maxDepth: Infinity });
    try {
      const parsed = await parsedLengths(() => post(unbounded, deep));
      expect(parsed.lengths).toContain(deep.length);
    } finally {
      await unbounded.close();
    }
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

  it('is refused before JSON.parse builds it: 87,000 keys or one key 131,000 times (1 MiB), which maxProperties: Infinity parses', async () => {
    let key = 0;
    const keys = fill('{', '"k______":1', '}').replace(/______/g, () => String(key++).padStart(6, '0'));
    const sameKey = fill('{', '"k":1', '}');
    const unbounded = await serve('bulk-orders-3.1.yaml', { handlers, maxProperties: Infinity });
    try {
      for (const body of [keys, sameKey]) {
        expect(await parsedLengths(() => post(orders, body))).toEqual({ status: 400, lengths: [] });
        expect((await parsedLengths(() => post(unbounded, body))).lengths).toContain(body.length);
      }
    } finally {
      await unbounded.close();
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
});
