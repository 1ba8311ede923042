// Copied into a designer's copy of the repository by test/designer/designer-loop.test.ts after it
// added `tags` (an optional array of unique strings) to NewPet and Pet in openapi.yaml; it runs
// there, against that contract. Not part of this repository's own suite.
import createClient from 'openapi-fetch';
import { afterAll, describe, expect, it } from 'vitest';
import type { components, paths } from '@animal-store/client';
import { startMockForTests } from './support/mock-target.js';
import { dropTestSchemas, postgresEnabled } from './support/services.js';
import { startTestServer } from './support/test-server.js';

// The client's types have the new field: this file compiles only if they do (npm run check).
const tags: NonNullable<components['schemas']['NewPet']['tags']> = ['friendly', 'small'];
const returned = (pet: components['schemas']['Pet']): string[] | undefined => pet.tags;

const engines = postgresEnabled() ? (['sqlite', 'postgres'] as const) : (['sqlite'] as const);
afterAll(() => dropTestSchemas());

describe.each(engines)('tags on %s', (engine) => {
  it('are stored, and returned by POST, GET /pets/{petId} and GET /pets', async () => {
    const server = await startTestServer({ engine });
    try {
      const client = server.client(await server.newKey('pro'));
      const created = await client.POST('/pets', { body: { name: 'Rex', categoryId: 3, tags } });
      expect(created.response.status).toBe(201);
      expect(returned(created.data!)).toEqual(tags);
      const fetched = await client.GET('/pets/{petId}', { params: { path: { petId: created.data!.id } } });
      expect(returned(fetched.data!)).toEqual(tags);
      const listed = await client.GET('/pets', { params: { query: { limit: 100 } } });
      expect(listed.data!.find((p) => p.id === created.data!.id)?.tags).toEqual(tags);
      const repeated = await client.POST('/pets', { body: { name: 'Tom', categoryId: 3, tags: ['a', 'a'] } });
      expect(repeated.response.status).toBe(400);
    } finally {
      await server.close();
    }
  });
});

describe('tags on the mock', () => {
  it('are accepted in a valid body and refused when repeated', async () => {
    const mock = await startMockForTests();
    try {
      const client = createClient<paths>({ baseUrl: mock.url, headers: { Authorization: 'Bearer as_prod_mock' } });
      const created = await client.POST('/pets', { body: { name: 'Rex', categoryId: 3, tags } });
      expect(created.response.status).toBe(201);
      const repeated = await client.POST('/pets', { body: { name: 'Rex', categoryId: 3, tags: ['a', 'a'] } });
      expect(repeated.response.status).toBe(400);
      expect(JSON.stringify(repeated.error)).toContain('tags');
    } finally {
      await mock.close();
    }
  });
});
