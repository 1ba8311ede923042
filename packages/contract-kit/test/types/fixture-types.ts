/**
 * The types renderTypes writes, and the client renderClient writes, for the fixtures the type-level tests beside this file are checked
 * against (`npm run typecheck`), each in a folder of its name. `npx tsx
 * packages/contract-kit/test/types/fixture-types.ts` writes them again; `fixture-types.test.ts`
 * fails when they are not what those write.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { listOperations, loadContract } from 'contract-kit';
import { renderClient, renderTypes } from 'contract-kit/codegen';

/** Each fixture typed, by the folder its types go to. */
const FIXTURES = { rail: 'rail-3.1.yaml', notes: 'notes-3.2.yaml' } as const;

/** The folder of a fixture's types. */
export const typesFolder = (name: keyof typeof FIXTURES) => fileURLToPath(new URL(`./${name}/`, import.meta.url));

/** The files renderTypes writes for each fixture, by their path under this folder. */
export async function fixtureTypes(): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  for (const [name, fixture] of Object.entries(FIXTURES)) {
    const path = fileURLToPath(new URL(`../fixtures/${fixture}`, import.meta.url));
    const header = `// Written by renderTypes from test/fixtures/${fixture} (test/types/fixture-types.ts). Do not edit it by hand.\n`;
    const doc = await loadContract(path);
    const { openapi, operations } = await renderTypes(path, doc, header);
    const folder = typesFolder(name as keyof typeof FIXTURES);
    files[`${folder}openapi.ts`] = openapi;
    files[`${folder}operations.ts`] = operations;
    for (const [file, text] of Object.entries(renderClient(doc, listOperations(doc), header))) files[`${folder}${file}`] = text;
  }
  return files;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const [path, text] of Object.entries(await fixtureTypes())) writeFileSync(path, text);
}
