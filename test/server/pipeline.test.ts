// The app runs the contract's middleware as one pipeline (src/service/http/pipeline.ts) instead of one
// app.use per step. It must keep Express 5's rules, or an error could be lost or a step skipped.
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express, { type ErrorRequestHandler, type RequestHandler } from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pipeline } from '../../src/service/http/pipeline.js';

let server: Server;
let origin: string;

/** A step that records that it ran, in the `ran` header of the answer. */
const mark =
  (name: string): RequestHandler =>
  (_req, res, next) => {
    res.locals.ran = [...((res.locals.ran as string[] | undefined) ?? []), name];
    next();
  };

const fails =
  (how: string): RequestHandler =>
  (req, _res, next) => {
    if (req.query.fail !== how) return next();
    if (how === 'throw') throw new Error('thrown');
    if (how === 'next') return next(new Error('passed to next'));
    if (how === 'reject') return Promise.reject(new Error('rejected'));
    if (how === 'later') return new Promise((_, reject) => setTimeout(() => reject(new Error('rejected later')), 5));
    if (how === 'route') return next('route');
    if (how === 'router') return next('router');
    return next();
  };

const answers: RequestHandler = (req, res, next) => {
  if (req.query.answer === 'early') return void res.json({ answered: 'early', ran: res.locals.ran });
  next();
};

beforeAll(async () => {
  const app = express();
  app.use(
    pipeline([
      mark('a'),
      fails('throw'),
      fails('next'),
      answers,
      mark('b'),
      fails('reject'),
      fails('later'),
      fails('route'),
      fails('router'),
      mark('c'),
    ]),
  );
  app.use((_req, res) => {
    res.json({ fellThrough: true, ran: res.locals.ran });
  });
  const onError: ErrorRequestHandler = (error: Error, _req, res, _next) => {
    res.status(500).json({ error: error.message, ran: res.locals.ran });
  };
  app.use(onError);
  server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

const get = async (query: string) => {
  const response = await fetch(`${origin}/?${query}`);
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
};

describe('pipeline', () => {
  it('runs every step in order, then the next middleware of the app', async () => {
    expect(await get('')).toEqual({ status: 200, body: { fellThrough: true, ran: ['a', 'b', 'c'] } });
  });

  it('stops at a step that answers', async () => {
    expect(await get('answer=early')).toEqual({ status: 200, body: { answered: 'early', ran: ['a'] } });
  });

  it.each([
    ['throw', 'thrown', ['a']],
    ['next', 'passed to next', ['a']],
    ['reject', 'rejected', ['a', 'b']],
    ['later', 'rejected later', ['a', 'b']],
  ])('hands an error (%s) to the error handler and runs no later step', async (how, message, ran) => {
    expect(await get(`fail=${how}`)).toEqual({ status: 500, body: { error: message, ran } });
  });

  it("goes on with the next step on next('route'), as Express's router does with the next middleware", async () => {
    expect(await get('fail=route')).toEqual({ status: 200, body: { fellThrough: true, ran: ['a', 'b', 'c'] } });
  });

  it("leaves the app's router on next('router'), as separate middleware would", async () => {
    const response = await fetch(`${origin}/?fail=router`);
    expect(response.status).toBe(404);
  });
});
