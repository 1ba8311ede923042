import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contractCors, contractDocuments, contractServer, loadContract, serve, type Served } from 'contract-kit';

const CONTRACT = fileURLToPath(new URL('./fixtures/cross-origin-3.1.yaml', import.meta.url));
const PAGE_ORIGIN = 'http://localhost:5173';
const dir = mkdtempSync(join(tmpdir(), 'kit-documents-'));
let served: Served;
let origin: string;

beforeAll(async () => {
  const contract = await loadContract(CONTRACT);
  const kit = contractServer({ contract, handlers: {}, onWarning: () => {} });
  const page = join(dir, 'index.html');
  writeFileSync(page, `<!doctype html><title>Notes</title>${'<p>reference</p>'.repeat(200)}`);
  const app = express();
  app.use(contractCors({ origins: ['http://localhost:*'], contracts: [kit] }).middleware);
  app.use(contractDocuments({ contract, text: 'openapi: 3.1.0 # as written\n', docsPage: page }));
  app.use(kit.router, kit.notFound, kit.errorHandler);
  served = await serve(app, { port: 0, host: '127.0.0.1', signals: [], onWarning: () => {} });
  origin = `http://127.0.0.1:${served.port}`;
});
afterAll(async () => {
  await served.stop({ graceMs: 0 });
  rmSync(dir, { recursive: true, force: true });
});

describe('contractCors', () => {
  it("takes the methods and headers from the contract: parameters', schemes', bodies' and responses'", async () => {
    const kit = contractServer({ contract: await loadContract(CONTRACT), handlers: {}, onWarning: () => {} });
    expect(kit.crossOrigin).toEqual({
      methods: ['GET', 'POST'],
      requestHeaders: ['X-Trace', 'X-Api-Key', 'Content-Type', 'Authorization'],
      responseHeaders: ['X-Remaining', 'Retry-After', 'Location'],
    });
  });

  it("answers an allowed origin's preflight 204 with those lists, before authentication", async () => {
    const response = await fetch(`${origin}/notes`, {
      method: 'OPTIONS',
      headers: { Origin: PAGE_ORIGIN, 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'authorization' },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe(PAGE_ORIGIN);
    expect(response.headers.get('access-control-allow-methods')).toBe('GET,POST');
    expect(response.headers.get('access-control-allow-headers')).toBe('X-Trace,X-Api-Key,Content-Type,Authorization');
  });

  it('exposes the declared response headers to an allowed origin, and gives another origin no CORS header', async () => {
    const allowed = await fetch(`${origin}/notes`, { headers: { Origin: PAGE_ORIGIN } });
    expect(allowed.status).toBe(401);
    expect(allowed.headers.get('access-control-expose-headers')).toBe('X-Remaining,Retry-After,Location');
    expect(allowed.headers.get('vary')).toMatch(/Origin/);
    const other = await fetch(`${origin}/notes`, { headers: { Origin: 'http://localhost.evil.test' } });
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
    const preflight = await fetch(`${origin}/notes`, {
      method: 'OPTIONS',
      headers: { Origin: 'https://elsewhere.example', 'Access-Control-Request-Method': 'GET' },
    });
    expect(preflight.status).toBe(405);
  });
});

describe('contractDocuments', () => {
  it('serves the text as written, and the contract as JSON, with a strong ETag and 304 for a client that has it', async () => {
    const yaml = await fetch(`${origin}/openapi.yaml`);
    expect(await yaml.text()).toBe('openapi: 3.1.0 # as written\n');
    const json = await fetch(`${origin}/openapi.json`);
    expect(((await json.json()) as { info: { title: string } }).info.title).toBe('Calls from other origins');
    const etag = json.headers.get('etag')!;
    expect(etag).toMatch(/^"[\w-]+"$/);
    const again = await fetch(`${origin}/openapi.json`, { headers: { 'If-None-Match': etag } });
    expect(again.status).toBe(304);
  });

  it('serves the page compressed for a client that takes it, each encoding with its own tag', async () => {
    const plain = await fetch(`${origin}/docs`, { headers: { 'Accept-Encoding': 'identity' } });
    expect(plain.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const gzip = await fetch(`${origin}/docs`, { headers: { 'Accept-Encoding': 'gzip' } });
    expect(gzip.headers.get('content-encoding')).toBe('gzip');
    expect(await gzip.text()).toBe(await plain.text());
    expect(gzip.headers.get('etag')).not.toBe(plain.headers.get('etag'));
  });
});
