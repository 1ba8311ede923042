import { describe, expect, it } from 'vitest';
import { loadSpec, resolveRef } from '../../src/contract/load-spec.js';
import { listOperations } from '../../src/contract/operations.js';
import { parameterProblems } from '../../src/contract/strict-parameters.js';

interface Parameter {
  name: string;
  in: string;
  description?: string;
  example?: unknown;
  schema?: unknown;
}

const doc = loadSpec();

/** Every integer parameter in the query or the path, with its operation. */
const integerParameters = listOperations(doc).flatMap((op) => {
  const item = doc.paths[op.path]!;
  const operation = item[op.method] as { parameters?: unknown[] };
  return [...((item.parameters as unknown[]) ?? []), ...(operation.parameters ?? [])]
    .map((raw) => resolveRef<Parameter>(doc, raw))
    .filter((p) => (p.in === 'query' || p.in === 'path') && resolveRef<{ type?: unknown }>(doc, p.schema).type === 'integer')
    .map((parameter) => ({ op, parameter, label: `${op.operationId} ${parameter.in}.${parameter.name}` }));
});

/** What the strict check (src/contract/strict-parameters.ts) says of `value` as this parameter. */
const problemsOf = ({ op, parameter }: (typeof integerParameters)[number], value: string) =>
  parameter.in === 'query'
    ? parameterProblems(op, { [parameter.name]: value }, {})
    : parameterProblems(op, {}, { [parameter.name]: value });

// The contract must say how such an integer is written, since the service refuses every other
// spelling that a validator's coercion would read as a number: each parameter's description says
// so, and the spellings it gives as refused are the ones the check refuses.
describe('integer parameters in the query and the path', () => {
  it('are in the contract (limit, petId)', () => {
    expect(integerParameters.map((p) => p.label)).toEqual(expect.arrayContaining(['listPets query.limit', 'getPet path.petId']));
  });

  it.each(integerParameters)('$label: its description says decimal digits only, and each spelling it refuses is refused', (entry) => {
    const description = entry.parameter.description ?? '';
    expect(description).toMatch(/decimal digits/);
    // The spellings named before "is refused" (the status named after it is no spelling).
    const refused = [...description.split(' is refused')[0]!.matchAll(/`([^`]+)`/g)].map((match) => match[1]!);
    expect(refused.length).toBeGreaterThanOrEqual(4);
    for (const spelling of refused) {
      expect(problemsOf(entry, spelling), spelling).toEqual([
        { field: `${entry.parameter.in}.${entry.parameter.name}`, message: 'must be an integer written in decimal digits' },
      ]);
    }
    expect(problemsOf(entry, String(entry.parameter.example))).toEqual([]);
  });
});
