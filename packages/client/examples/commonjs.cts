/**
 * The client from a CommonJS project (what `npm init -y` makes, with the tsconfig.json of
 * `tsc --init` and the two options the README's "With TypeScript" sets). The package is ES modules; Node.js 22.12 and later load them with require(),
 * which `import … = require()` compiles to (module NodeNext; a plain `import` in a CommonJS file
 * is refused under verbatimModuleSyntax, TS1286). Top-level await belongs to ES modules (TS1309
 * here): the calls run in an async function.
 *
 *   npx tsc && ANIMAL_STORE_URL=http://localhost:3000/v1 ANIMAL_STORE_KEY=as_prod_… node dist/commonjs.cjs
 *
 * In plain JavaScript: const { createAnimalStoreClient } = require('@animal-store/client');
 */
import animalStore = require('@animal-store/client');

const { createAnimalStoreClient } = animalStore;

async function main(): Promise<void> {
  const apiKey = process.env.ANIMAL_STORE_KEY;
  if (!apiKey) {
    console.error('Set ANIMAL_STORE_KEY to an API key (npm run keys -- create --plan free --name me).');
    process.exitCode = 2;
    return;
  }
  const client = createAnimalStoreClient({ baseUrl: process.env.ANIMAL_STORE_URL ?? 'http://localhost:3000/v1', apiKey });
  const { data, error } = await client.GET('/pets', { params: { query: { limit: 5 } } });
  if (error) {
    console.error(`could not list the animals: ${error.code}: ${error.message}`);
    process.exitCode = 1;
    return;
  }
  console.log(`first animals: ${data.map((pet) => pet.name).join(', ')}`);
}

main().catch((failure: unknown) => {
  console.error(failure);
  process.exitCode = 1;
});
