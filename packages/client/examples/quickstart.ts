/**
 * Uses the Animal Store client as an application would: through the package's exports.
 *
 *   ANIMAL_STORE_URL=http://localhost:3000/v1 ANIMAL_STORE_KEY=as_prod_… node --import tsx packages/client/examples/quickstart.ts
 */
import { createAnimalStoreClient, type Pet } from '@animal-store/client';

const apiKey = process.env.ANIMAL_STORE_KEY;
if (!apiKey) {
  console.error('Set ANIMAL_STORE_KEY to an API key (npm run keys -- create --plan free --name me).');
  process.exit(2);
}

const client = createAnimalStoreClient({
  // Without a baseUrl, `environment: 'production' | 'staging'` picks the contract's servers.
  baseUrl: process.env.ANIMAL_STORE_URL ?? 'http://localhost:3000/v1',
  apiKey,
  retry: { maxRetries: 5, deadlineMs: 90_000 },
  onDeprecation: (notice) => console.log(`deprecated: ${notice.operation} (sunset ${notice.sunset?.toISOString().slice(0, 10)})`),
});

// Add an animal. The client sends an Idempotency-Key, so a retry never adds it twice.
const { data: rex, error } = await client.POST('/pets', { body: { name: 'Rex', categoryId: 3 } });
if (error) {
  console.error(`could not add Rex: ${error.code}: ${error.message}`);
  process.exit(1);
}
console.log(`added ${rex.name} as #${rex.id} (${rex.status})`);

// Every available animal, page after page.
const available: Pet[] = [];
for await (const pet of client.listAllPets({ status: 'available', pageSize: 50 })) available.push(pet);
console.log(`available animals: ${available.length}`);

// The deprecated operation still answers, and the client says so once.
const { data: again } = await client.GET('/pets/{petId}', { params: { path: { petId: rex.id } } });
console.log(`fetched #${again?.id} again`);
console.log(`rate limit: ${client.rateLimit?.remaining} of ${client.rateLimit?.limit} left`);
