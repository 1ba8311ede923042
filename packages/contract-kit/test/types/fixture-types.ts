/**
 * The types renderTypes writes for the rail fixture, which the type-level tests beside this file
 * are checked against (`npm run typecheck`). `npx tsx packages/contract-kit/test/types/fixture-types.ts`
 * writes them again; `fixture-types.test.ts` fails when they are not what renderTypes writes.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadContract } from 'contract-kit';
import { renderTypes } from 'contract-kit/codegen';

export const RAIL = fileURLToPath(new URL('../fixtures/rail-3.1.yaml', import.meta.url));
export const RAIL_TYPES = fileURLToPath(new URL('./rail/', import.meta.url));
const HEADER = '// Written by renderTypes from test/fixtures/rail-3.1.yaml (test/types/fixture-types.ts). Do not edit it by hand.\n';

/** The files renderTypes writes for the rail fixture. */
export async function railTypes(): Promise<Record<'openapi.ts' | 'operations.ts', string>> {
  const { openapi, operations } = await renderTypes(RAIL, await loadContract(RAIL), HEADER);
  return { 'openapi.ts': openapi, 'operations.ts': operations };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const [name, text] of Object.entries(await railTypes())) writeFileSync(`${RAIL_TYPES}${name}`, text);
}
