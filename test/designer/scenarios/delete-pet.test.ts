// Copied into a designer's copy of the repository by test/designer/designer-loop.test.ts after it
// added `DELETE /pets/{petId}` to openapi.yaml, its handler and the store method deletePet; it
// runs there, against that contract. Not part of this repository's own suite.
import { afterAll, describe, expect, it } from 'vitest';
import { dropTestSchemas, postgresEnabled } from './support/services.js';
import { startTestServer } from './support/test-server.js';

const engines = postgresEnabled() ? (['sqlite', 'postgres'] as const) : (['sqlite'] as const);
afterAll(() => dropTestSchemas());

describe.each(engines)('DELETE /pets/{petId} on %s', (engine) => {
  it('removes the animal from the list and from GET, once: a second DELETE is 404, and no cached page shows it again', async () => {
    const server = await startTestServer({ engine });
    try {
      const client = server.client(await server.newKey('pro'));
      const rex = (await client.POST('/pets', { body: { name: 'Rex', categoryId: 3 } })).data!;
      const tom = (await client.POST('/pets', { body: { name: 'Tom', categoryId: 3 } })).data!;
      const listed = async () => (await client.GET('/pets', { params: { query: { limit: 100 } } })).data!.map((p) => p.id);
      // Read twice: the second answer may come from the page cache.
      expect(await listed()).toEqual([rex.id, tom.id]);
      expect(await listed()).toEqual([rex.id, tom.id]);

      const deleted = await client.DELETE('/pets/{petId}', { params: { path: { petId: rex.id } } });
      expect(deleted.response.status).toBe(204);
      expect(await listed()).toEqual([tom.id]);
      expect(await listed()).toEqual([tom.id]);
      expect((await client.GET('/pets/{petId}', { params: { path: { petId: rex.id } } })).response.status).toBe(404);
      const again = await client.DELETE('/pets/{petId}', { params: { path: { petId: rex.id } } });
      expect(again.response.status).toBe(404);
      expect((await client.GET('/pets/{petId}', { params: { path: { petId: tom.id } } })).data).toEqual(tom);
    } finally {
      await server.close();
    }
  });
});
