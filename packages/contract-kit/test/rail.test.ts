import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UNMATCHED_HEADER, type AnyHandler } from 'contract-kit';
import { basic, serve } from './serve.js';

type Served = Awaited<ReturnType<typeof serve>>;
let rail: Served;

const handlers: Record<string, AnyHandler> = {
  getStations: ({ query }) => ({
    status: 200,
    headers: { 'X-Total-Count': 1, 'X-Partial': query.limit === 1 },
    body: [{ id: 1, name: `limit ${JSON.stringify(query.limit ?? 'none')}` }],
  }),
  getStationsByStationId: ({ path }) =>
    path['station-id'] === 404
      ? { status: 404, body: { type: 'about:blank', title: 'Not Found', status: 404, detail: 'No station 404.' } }
      : { status: 200, body: { id: path['station-id'], name: 'Central' } },
  findStationMap: () => ({ status: 200, body: Buffer.from([0x89, 0x50, 0x4e, 0x47]) }),
  createBooking: ({ body, contentType }, { caller }) => {
    if (contentType === 'application/xml') return { status: 201, body: { id: `xml:${String(body).length}`, station: 1, seats: 1 } };
    const { station, seats } = body as { station: number; seats: number };
    return { status: 201, body: { id: `by ${String(caller)}`, station, seats } };
  },
};

beforeAll(async () => {
  rail = await serve('rail-3.1.yaml', {
    handlers,
    security: {
      basicAuth: (credentials) =>
        'password' in credentials && credentials.password === 'secret' ? { caller: credentials.username } : undefined,
      bearerAuth: (credentials) => ('token' in credentials && credentials.token === 'good' ? { caller: 'token holder' } : undefined),
    },
  });
});
afterAll(() => rail.close());

describe('a 3.1 contract with two servers, one with a + and variables', () => {
  it('serves under the path of each server, variables at their defaults', async () => {
    expect(rail.kit.basePaths).toEqual(['/api+v2', '/mock']);
    for (const base of rail.kit.basePaths) expect((await rail.fetch(`${base}/stations`)).status).toBe(200);
  });

  it('routes the names made for operationIds that are not identifiers, and for none', async () => {
    expect(rail.kit.operations.map((op) => op.name)).toEqual([
      'getStations',
      'getStationsByStationId',
      'findStationMap',
      'createBooking',
      'deleteOperation',
    ]);
    const station = await rail.fetch('/mock/stations/7');
    expect(await station.json()).toEqual({ id: 7, name: 'Central' });
  });

  it('types parameters as their schemas say, and checks them against the contract', async () => {
    const listed = await rail.fetch('/mock/stations?limit=3');
    expect(await listed.json()).toEqual([{ id: 1, name: 'limit 3' }]);
    expect([listed.headers.get('x-total-count'), listed.headers.get('x-partial')]).toEqual(['1', 'false']);
    const refused = await rail.fetch('/mock/stations?limit=0x3');
    expect(refused.status).toBe(400);
    expect(refused.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
    expect(await refused.json()).toMatchObject({ status: 400, code: 'invalid_request', errors: [{ parameter: 'query.limit' }] });
    const unknown = await rail.fetch('/mock/stations?colour=red');
    expect(unknown.status).toBe(400);
    const badId = await rail.fetch('/mock/stations/0');
    expect(await badId.json()).toMatchObject({ errors: [{ parameter: 'path.station-id' }] });
  });

  it('answers a PNG as bytes', async () => {
    const map = await rail.fetch('/mock/stations/7/map.png');
    expect(map.headers.get('content-type')).toBe('image/png');
    expect([...new Uint8Array(await map.arrayBuffer())]).toEqual([0x89, 0x50, 0x4e, 0x47]);
  });
});

describe('security from the contract: HTTP Basic or bearer, public operations', () => {
  const book = (headers: Record<string, string>, body = '{"station":3,"seats":2}') =>
    rail.fetch('/mock/bookings', { method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, body });

  it('lets HTTP Basic or a bearer token in, and says who called', async () => {
    expect(await (await book({ Authorization: basic('ada', 'secret') })).json()).toEqual({ id: 'by ada', station: 3, seats: 2 });
    expect(await (await book({ Authorization: 'Bearer good' })).json()).toEqual({ id: 'by token holder', station: 3, seats: 2 });
  });

  it('refuses missing or wrong credentials with 401, challenging with both schemes, in problem+json', async () => {
    for (const headers of [{}, { Authorization: basic('ada', 'wrong') }, { Authorization: 'Bearer bad' }] as Record<string, string>[]) {
      const refused = await book(headers);
      expect(refused.status).toBe(401);
      expect(refused.headers.get('www-authenticate')).toBe('Basic realm="Rail bookings", Bearer realm="Rail bookings"');
      expect(refused.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
      expect(await refused.json()).toMatchObject({ type: 'about:blank', title: 'Unauthorized', status: 401, instance: '/mock/bookings' });
    }
  });

  it('serves an operation with security: [] without credentials', async () => {
    expect((await rail.fetch('/mock/stations')).status).toBe(200);
  });
});

describe('what a 400 says of each field', () => {
  it("says it in words, never quoting a pattern: the schema's example shows the form", async () => {
    const pattern = await rail.fetch('/mock/stations?country=a1');
    expect(await pattern.json()).toMatchObject({
      errors: [{ parameter: 'query.country', detail: 'is not in the form this takes (for example "DE")' }],
    });
    const length = await rail.fetch('/mock/stations?country=abc');
    expect((await length.json()) as unknown).toMatchObject({
      errors: [{ parameter: 'query.country', detail: 'must be at most 2 characters' }],
    });
    const range = await rail.fetch('/mock/stations?limit=51');
    expect(await range.json()).toMatchObject({ errors: [{ parameter: 'query.limit', detail: 'must be at most 50' }] });
    const body = await rail.fetch('/mock/bookings', {
      method: 'POST',
      headers: { Authorization: 'Bearer good', 'Content-Type': 'application/json' },
      body: '{"station":"3","seats":0,"extra":1}',
    });
    const { errors } = (await body.json()) as { errors: { pointer: string; detail: string }[] };
    expect(errors.sort((a, b) => a.pointer.localeCompare(b.pointer))).toEqual([
      { pointer: '/extra', detail: 'is not a field this takes' },
      { pointer: '/seats', detail: 'must be at least 1' },
      { pointer: '/station', detail: 'must be an integer' },
    ]);
  });
});

describe('request bodies by media type', () => {
  const post = (contentType: string, body: string) =>
    rail.fetch('/mock/bookings', { method: 'POST', headers: { Authorization: 'Bearer good', 'Content-Type': contentType }, body });

  it('checks JSON against the schema and refuses what does not fit with 400', async () => {
    const refused = await post('application/json', '{"station":3,"seats":9,"extra":1}');
    expect(refused.status).toBe(400);
    const { errors } = (await refused.json()) as { errors: { pointer?: string }[] };
    expect(errors.map((e) => e.pointer).sort()).toEqual(['/extra', '/seats']);
  });

  it('hands a well-formed XML body to the handler as its text, and refuses one that is not XML', async () => {
    const xml = '<booking><station>3</station><seats>2</seats></booking>';
    expect(await (await post('application/xml', xml)).json()).toMatchObject({ id: `xml:${xml.length}` });
    const refused = await post('application/xml', 'not xml at all');
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ errors: [{ pointer: '' }] });
  });

  it('refuses a media type the operation does not declare with 415', async () => {
    const refused = await post('text/plain', 'seats=2');
    expect(refused.status).toBe(415);
    expect(await refused.json()).toMatchObject({ detail: 'The request body must be application/json or application/xml, not text/plain.' });
  });

  it('refuses a missing required body with 400', async () => {
    const refused = await rail.fetch('/mock/bookings', { method: 'POST', headers: { Authorization: 'Bearer good' } });
    expect(refused.status).toBe(400);
  });
});

describe('routing what the contract lacks, and what is not written yet', () => {
  it('answers 405 with Allow for a method the path lacks, 404 for a path it lacks', async () => {
    const wrongMethod = await rail.fetch('/mock/stations', { method: 'DELETE' });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).toBe('GET, HEAD');
    expect((await rail.fetch('/mock/nowhere')).status).toBe(404);
    expect((await rail.fetch('/elsewhere/stations')).status).toBe(404);
  });

  it('marks its own 404 and 405 with Contract-Unmatched, never a 404 a handler answers', async () => {
    const wrongMethod = await rail.fetch('/mock/stations', { method: 'DELETE' });
    expect(wrongMethod.headers.get(UNMATCHED_HEADER)).toBe('method_not_allowed');
    for (const path of ['/mock/nowhere', '/elsewhere/stations', '/mock/stations/']) {
      const lost = await rail.fetch(path);
      expect(lost.status, path).toBe(404);
      expect(lost.headers.get(UNMATCHED_HEADER), path).toBe('not_found');
    }
    const unknown = await rail.fetch('/mock/stations/404');
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ detail: 'No station 404.' });
    expect(unknown.headers.get(UNMATCHED_HEADER)).toBeNull();
  });

  it('does not route webhooks', async () => {
    expect((await rail.fetch('/mock/bookingConfirmed', { method: 'POST' })).status).toBe(404);
  });

  it('answers 501 for an operation without a handler, and named it at start', async () => {
    const stub = await rail.fetch('/mock/bookings/abc', { headers: { Authorization: 'Bearer good' } });
    expect(stub.status).toBe(501);
    expect(rail.warnings).toContain('deleteOperation (GET /bookings/{id}) has no handler: it answers 501');
  });

  it('sends Deprecation, Sunset and Link on every answer of a deprecated operation, a 401 too', async () => {
    const refused = await rail.fetch('/api+v2/bookings/abc');
    expect(refused.status).toBe(401);
    expect(refused.headers.get('deprecation')).toBe(`@${Date.parse('2026-01-01T00:00:00Z') / 1000}`);
    expect(refused.headers.get('sunset')).toBe('Wed, 01 Jan 2031 00:00:00 GMT');
    expect(refused.headers.get('link')).toBe('</api+v2/bookings>; rel="successor-version"');
  });

  it('answers HEAD where GET is declared, without a body', async () => {
    const head = await rail.fetch('/mock/stations', { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
  });

  it('had no failure of its own', () => {
    expect(rail.errors).toEqual([]);
  });
});
