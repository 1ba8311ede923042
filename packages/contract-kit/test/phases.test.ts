// An application's steps run among the kit's by phase, in the kit's order whatever order the
// phases are given in, and stepsOf lists each operation's steps as they run.
import type { Request, RequestHandler } from 'express';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { authenticationOf, type AnyHandler, type PhaseSteps } from 'contract-kit';
import { serve } from './serve.js';

const log: string[] = [];
/** A step that notes its name and what the kit's steps before it left, then goes on. */
const noting =
  (name: string, seen: (req: Request) => unknown): RequestHandler =>
  (req, _res, next) => {
    log.push(`${name} ${JSON.stringify(seen(req))}`);
    next();
  };

const handlers: Record<string, AnyHandler> = {
  createOrder: ({ body }) => {
    log.push('handler');
    return { status: 201, body: { id: 1, ...(body as object) } };
  },
  deleteOrder: () => {
    log.push('handler');
    return { status: 204 };
  },
};

// Given last phase first: the kit orders them.
const steps: PhaseSteps = {
  beforeHandler: () => ({ valid: noting('valid', (req) => req.body as unknown) }),
  beforeValidation: () => ({ read: noting('read', (req) => req.body as unknown) }),
  afterAuthentication: (op) => ({
    caller: noting('caller', (req) => authenticationOf(req)?.failure !== undefined),
    // Left out of every other operation.
    keyed: op.name === 'deleteOrder' ? noting('keyed', () => true) : undefined,
  }),
};

describe("an application's steps by phase", () => {
  let orders: Awaited<ReturnType<typeof serve>>;
  beforeAll(async () => {
    orders = await serve('orders-3.1.yaml', { handlers, steps, security: { apiKey: () => ({ caller: 'k' }) } });
  });
  afterAll(() => orders.close());
  beforeEach(() => void log.splice(0));

  const post = (body: unknown) =>
    orders.fetch('/shop/orders', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });

  it('run after authenticate, after the body is read and after validation, in that order', async () => {
    expect((await post({ item: 'tea', quantity: 2 })).status).toBe(201);
    expect(log).toEqual(['caller false', 'read {"item":"tea","quantity":2}', 'valid {"item":"tea","quantity":2}', 'handler']);
  });

  it('before the body is validated: an invalid one reaches beforeValidation, not beforeHandler', async () => {
    expect((await post({ item: '', quantity: 2 })).status).toBe(400);
    expect(log).toEqual(['caller false', 'read {"item":"","quantity":2}']);
  });

  it('afterAuthentication before the 401 of a request without credentials', async () => {
    expect((await orders.fetch('/shop/orders/7', { method: 'DELETE' })).status).toBe(401);
    expect(log).toEqual(['caller true', 'keyed true']);
  });

  it('are listed by stepsOf among the kit’s, in the order they run; one left undefined is not', () => {
    const kit = (name: string) => ({ name, by: 'kit' });
    const app = (name: string, phase: string) => ({ name, by: 'application', phase });
    expect(orders.kit.stepsOf('createOrder')).toEqual([
      kit('deprecation'),
      kit('authenticate'),
      app('caller', 'afterAuthentication'),
      kit('authorize'),
      kit('sunset'),
      kit('parameters'),
      kit('body'),
      app('read', 'beforeValidation'),
      kit('validate'),
      app('valid', 'beforeHandler'),
      kit('handler'),
    ]);
    expect(orders.kit.stepsOf('deleteOrder').map((s) => s.name)).toEqual([
      'deprecation',
      'authenticate',
      'caller',
      'keyed',
      'authorize',
      'sunset',
      'parameters',
      'body',
      'read',
      'validate',
      'valid',
      'handler',
    ]);
    expect(() => orders.kit.stepsOf('nope')).toThrow('orders-3.1.yaml has no operation nope');
  });
});
