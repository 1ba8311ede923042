import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serve } from './serve.js';

type Served = Awaited<ReturnType<typeof serve>>;
let parts: Served;
const stored: unknown[] = [];

beforeAll(async () => {
  parts = await serve('multi-file/openapi.yaml', {
    handlers: {
      listParts: () => ({ status: 200, body: stored }),
      addPart: ({ body }) => {
        stored.push(body);
        return { status: 201, body };
      },
    },
  });
});
afterAll(() => parts.close());

describe('a contract whose paths and schemas are files of their own', () => {
  it('is served at /, with the schemas of the other files checked', async () => {
    const add = (body: unknown) =>
      parts.fetch('/parts', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
    expect((await add({ sku: 'ABC-1234', weight: 2.5 })).status).toBe(201);
    const refused = await add({ sku: 'abc', weight: 0 });
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { errors: { pointer: string }[] }).errors.map((e) => e.pointer).sort()).toEqual(['/sku', '/weight']);
    expect(await (await parts.fetch('/parts')).json()).toEqual([{ sku: 'ABC-1234', weight: 2.5 }]);
    expect(parts.errors).toEqual([]);
  });
});
