import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/service/config/config-error.js';
import { corsOriginsOf, loadConfig } from '../../src/service/config/load-config.js';
import { originAllowed, parseAllowedOrigin } from 'contract-kit';
import { LOCAL_ORIGINS } from '../../src/service/allowed-origins.js';
import { loadSpec } from '../../src/contract/load-spec.js';
import { ContractChecker } from '../contract/conformance.js';
import { allowAt } from '../support/contract-methods.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { BASE_PATH } from '../support/base-path.js';

const APP = 'http://localhost:5173';

/** Names of the headers the contract's responses declare (the keys of every response's `headers`). */
function responseHeaderNames(doc: unknown): string[] {
  const names = new Set<string>();
  const visit = (node: unknown, path: string[]) => {
    if (typeof node !== 'object' || node === null) return;
    for (const [key, value] of Object.entries(node as Record<string, unknown>)) {
      // components.headers names reusable headers; everywhere else a headers map's keys are header names.
      if (key === 'headers' && path.join('.') !== 'components' && typeof value === 'object' && value !== null) {
        for (const name of Object.keys(value)) names.add(name);
      } else {
        visit(value, [...path, key]);
      }
    }
  };
  visit(doc, []);
  return [...names].sort();
}

/** A browser's preflight for a request with `headers` from `origin`. */
function preflight(server: TestServer, origin: string, method = 'GET', headers = 'authorization') {
  return fetch(`${server.baseUrl}/pets`, {
    method: 'OPTIONS',
    headers: { Origin: origin, 'Access-Control-Request-Method': method, 'Access-Control-Request-Headers': headers },
  });
}

let server: TestServer;
let closed: TestServer;
beforeAll(async () => {
  server = await startTestServer({
    corsOrigins: [...LOCAL_ORIGINS, 'https://app.example.com'],
    anonymousLimits: { perMinute: 5, perDay: 100 },
  });
  closed = await startTestServer();
});
afterAll(async () => {
  await server?.close();
  await closed?.close();
});

describe('CORS', () => {
  it('answers a preflight from an allowed origin with 204 before the key and the limits', async () => {
    // Three times the anonymous limit: a preflight carries no key and must not use any allowance.
    for (let i = 0; i < 15; i++) {
      const response = await preflight(server, APP, 'POST', 'authorization,content-type,idempotency-key');
      expect(response.status).toBe(204);
      expect(response.headers.get('Access-Control-Allow-Origin')).toBe(APP);
      expect(response.headers.get('Access-Control-Allow-Methods')?.split(',')).toEqual(expect.arrayContaining(['GET', 'POST']));
      expect(response.headers.get('Access-Control-Allow-Headers')?.toLowerCase().split(',')).toEqual(
        expect.arrayContaining(['authorization', 'content-type', 'idempotency-key']),
      );
      expect(response.headers.get('Access-Control-Max-Age')).toBe('600');
      expect(response.headers.get('Vary')).toMatch(/Origin/);
      expect(response.headers.get('X-RateLimit-Limit')).toBeNull();
      expect(await response.text()).toBe('');
    }
    // The address's allowance is whole: requests without a key still get their 5.
    const anonymous = await fetch(`${server.baseUrl}/pets`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('X-RateLimit-Remaining')).toBe('4');
  });

  it("lets the page read the headers the contract declares on an allowed origin's answers", async () => {
    const key = await server.newKey('free');
    const response = await fetch(`${server.baseUrl}/pets?limit=1`, { headers: { Origin: APP, Authorization: `Bearer ${key}` } });
    expect(response.status).toBe(200);
    expect(response.headers.get('Access-Control-Allow-Origin')).toBe(APP);
    const exposed = (response.headers.get('Access-Control-Expose-Headers') ?? '').split(',').map((h) => h.trim().toLowerCase());
    // Every response header the contract declares, taken from the contract.
    const declared = responseHeaderNames(loadSpec());
    expect(declared).toEqual(expect.arrayContaining(['X-RateLimit-Remaining', 'Link', 'Retry-After']));
    for (const name of [...declared, 'X-Request-Id', 'Idempotent-Replayed']) expect(exposed, name).toContain(name.toLowerCase());
    // And no other: what the page may read is what the contract declares.
    expect(exposed.sort()).toEqual([...new Set(declared.map((h) => h.toLowerCase()))].sort());
  });

  it("answers other origins' preflights 405 without a CORS header, with the address's rate-limit headers, before the key and the limits", async () => {
    const remaining = async () => Number((await fetch(`${server.baseUrl}/pets`)).headers.get('X-RateLimit-Remaining'));
    const before = await remaining();
    const checker = new ContractChecker(loadSpec());
    for (const origin of [
      'https://evil.example',
      'http://localhost:80.evil.example',
      'https://localhost',
      'null',
      'https://app.example.com.evil.example',
    ]) {
      const response = await preflight(server, origin);
      expect(response.headers.get('Access-Control-Allow-Origin'), origin).toBeNull();
      expect(response.status, origin).toBe(405);
      expect(response.headers.get('Allow'), origin).toBe(allowAt('/pets'));
      // Like every refusal the contract does not exempt: the Error body, X-Request-Id and the address's rate-limit headers.
      expect(checker.checkErrorResponse({ status: 405, headers: response.headers, text: await response.text() }), origin).toEqual([]);
      expect(response.headers.get('X-RateLimit-Limit'), origin).toBe('5');
      // Read, not counted.
      expect(response.headers.get('X-RateLimit-Remaining'), origin).toBe(String(before));
    }
    // With CORS off, every origin is another one.
    const unlisted = await preflight(closed, APP);
    expect(unlisted.status).toBe(405);
    expect(unlisted.headers.get('X-RateLimit-Remaining')).not.toBeNull();
    // The preflights used none of the address's allowance.
    expect(await remaining()).toBe(before - 1);
  });

  it('leaves an OPTIONS that is not a preflight to the contract (405 with a key)', async () => {
    const key = await server.newKey('free');
    const options = await fetch(`${server.baseUrl}/pets`, { method: 'OPTIONS', headers: { Origin: APP, Authorization: `Bearer ${key}` } });
    expect(options.status).toBe(405);
  });

  it('keeps Vary: Origin on the compressed documents, next to Accept-Encoding', async () => {
    for (const path of ['/openapi.json', '/openapi.yaml', '/healthz']) {
      const response = await fetch(`${server.origin}${path}`, { headers: { Origin: APP, 'Accept-Encoding': 'gzip' } });
      expect(response.headers.get('Access-Control-Allow-Origin'), path).toBe(APP);
      expect(response.headers.get('Vary'), path).toMatch(/Origin/);
      if (path !== '/healthz') expect(response.headers.get('Vary'), path).toMatch(/Accept-Encoding/);
    }
  });

  it('puts the CORS headers on the 431 Node answers before the app sees the request', async () => {
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(new URL(server.origin).port), '127.0.0.1');
      let text = '';
      socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
      socket.write(`GET ${BASE_PATH}/pets HTTP/1.1\r\nHost: x\r\nOrigin: ${APP}\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    });
    expect(answer).toMatch(/^HTTP\/1\.1 431 /);
    expect(answer).toContain(`Access-Control-Allow-Origin: ${APP}\r\n`);
    expect(answer).toMatch(/Access-Control-Expose-Headers: [^\r]*X-RateLimit-Remaining/);
  });

  it('allows no origin when none is configured', async () => {
    const response = await preflight(closed, APP);
    expect(response.headers.get('Access-Control-Allow-Origin')).toBeNull();
    expect(response.status).not.toBe(204);
  });
});

describe('CORS_ORIGINS', () => {
  it('defaults to none in production and to local pages otherwise', () => {
    expect(corsOriginsOf(loadConfig({ NODE_ENV: 'production' }))).toEqual([]);
    expect(corsOriginsOf(loadConfig({ NODE_ENV: 'development' }))).toEqual(LOCAL_ORIGINS);
    expect(corsOriginsOf(loadConfig({ NODE_ENV: 'development', CORS_ORIGINS: 'none' }))).toEqual([]);
    expect(corsOriginsOf(loadConfig({ NODE_ENV: 'production', CORS_ORIGINS: 'https://app.example.com, http://localhost:*' }))).toEqual([
      'https://app.example.com',
      'http://localhost:*',
    ]);
  });

  it('refuses what is not an origin, naming it', () => {
    for (const bad of [
      'app.example.com',
      'https://app.example.com/',
      'https://app.example.com/path',
      'ftp://x.example',
      'https://a.example,,https://b.example',
      '*',
      'https://*.a.example',
    ]) {
      expect(() => loadConfig({ CORS_ORIGINS: bad }), bad).toThrow(ConfigError);
    }
    expect(() => loadConfig({ CORS_ORIGINS: 'https://app.example.com/' })).toThrow(/CORS_ORIGINS=.*must be an origin alone/);
  });

  it('matches a port wildcard with a port only', () => {
    const allowed = [parseAllowedOrigin('http://localhost:*')];
    expect(originAllowed('http://localhost:5173', allowed)).toBe(true);
    // The default port, which browsers leave out of Origin.
    expect(originAllowed('http://localhost', allowed)).toBe(true);
    expect(originAllowed('http://localhost:99999', allowed)).toBe(false);
    expect(originAllowed('http://localhost:05173', allowed)).toBe(false);
    expect(originAllowed('http://localhost:5173.evil.example', allowed)).toBe(false);
    expect(originAllowed('https://localhost:5173', allowed)).toBe(false);
  });
});
