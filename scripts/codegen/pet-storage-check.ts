import { listOperations, resolveRef, type OpenApiDocument } from 'contract-kit';
import type { GeneratePlugin } from 'contract-kit/codegen';
import { PET_COLUMNS } from '../../src/service/store/pet-record.js';

/** The object schema of a request or response body, after `$ref` and `allOf` are followed. */
export interface ObjectShape {
  properties: Record<string, { default?: unknown }>;
  required: Set<string>;
}

/** The fields the stores fill themselves rather than take from the request. */
const STORE_ASSIGNED = new Set(['id']);

const snakeCase = (field: string) => field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** A JSON pointer's token for `text` (RFC 6901). */
const pointerToken = (text: string) => text.replaceAll('~', '~0').replaceAll('/', '~1');

/**
 * Where the contract's responses give examples of the stored animal (a body of `storedSchema`, or
 * an array of them) that lack `field`: each as a JSON pointer (`#/components/examples/X/value`
 * for one by reference), once.
 */
function examplesLacking(doc: OpenApiDocument, storedSchema: unknown, field: string): string[] {
  const isStored = (schema: unknown) => JSON.stringify(schema) === JSON.stringify(storedSchema);
  const lacks = (value: unknown) => value !== null && typeof value === 'object' && !Array.isArray(value) && !(field in value);
  const found = new Set<string>();
  for (const op of listOperations(doc)) {
    for (const [status, { content }] of Object.entries(op.responses)) {
      for (const [type, media] of Object.entries(content)) {
        const schema = resolveRef<{ type?: string; items?: unknown }>(doc, media.schema);
        const many = schema?.type === 'array' && isStored(schema.items);
        if (!many && !isStored(media.schema)) continue;
        const at = `${op.pointer}/responses/${status}/content/${pointerToken(type)}`;
        const given: [string, unknown][] = [
          ...('example' in media ? [[`${at}/example`, media.example] as [string, unknown]] : []),
          ...Object.entries(media.examples ?? {}).map(([name, example]): [string, unknown] => {
            const ref = (example as { $ref?: unknown }).$ref;
            return [
              `${typeof ref === 'string' ? ref : `${at}/examples/${name}`}/value`,
              resolveRef<{ value?: unknown }>(doc, example).value,
            ];
          }),
        ];
        for (const [pointer, value] of given) if ((many && Array.isArray(value) ? value : [value]).some(lacks)) found.add(pointer);
      }
    }
  }
  return [...found];
}

function objectShape(doc: OpenApiDocument, schema: unknown, label: string): ObjectShape {
  const resolved = resolveRef<Record<string, unknown>>(doc, schema);
  const shape: ObjectShape = { properties: {}, required: new Set() };
  for (const part of [
    resolved,
    ...((resolved.allOf as unknown[] | undefined) ?? []).map((s) => resolveRef<Record<string, unknown>>(doc, s)),
  ]) {
    if (part.oneOf || part.anyOf)
      throw new Error(
        `${label}: a oneOf or anyOf body is not one set of fields; the stores keep plain objects (see src/service/store/pet-record.ts)`,
      );
    for (const [name, property] of Object.entries((part.properties as Record<string, unknown> | undefined) ?? {})) {
      const own = property as { default?: unknown };
      shape.properties[name] = {
        ...resolveRef<{ default?: unknown }>(doc, property),
        ...('default' in own ? { default: own.default } : {}),
      };
    }
    for (const name of (part.required as string[] | undefined) ?? []) shape.required.add(name);
  }
  return shape;
}

/** The operation whose request body the stores keep as an animal, and whose 201 body is the animal kept. */
const STORED_OPERATION = 'createPet';

/**
 * The request and response bodies of the operation that stores animals (NewPet and Pet), or null
 * when the contract has no such operation: then no store serves it, and nothing is kept.
 */
export function createPetBodies(doc: OpenApiDocument): { sent: ObjectShape; stored: ObjectShape; storedSchema: unknown } | null {
  const operation = listOperations(doc).find((op) => op.name === STORED_OPERATION);
  if (!operation) return null;
  const sent = operation.requestBody?.content['application/json']?.schema;
  const stored = operation.responses['201']?.content['application/json']?.schema;
  if (sent === undefined || stored === undefined) {
    throw new Error(
      `openapi.yaml's ${STORED_OPERATION} has no JSON request body or no JSON 201 response: the stores keep what it sends and return what they kept`,
    );
  }
  return {
    sent: objectShape(doc, sent, `${STORED_OPERATION} request body`),
    stored: objectShape(doc, stored, `${STORED_OPERATION} 201 body`),
    storedSchema: stored,
  };
}

/**
 * Where the contract asks for something the stores cannot keep: every field of a stored animal
 * (the createPet 201 body, Pet) must be a column, or a field of the request (NewPet) that every
 * request carries (required, or given a default); every field of the request must be one the
 * response may hold, since it is stored and returned. One message per field, naming the field
 * and what to edit; empty when the stores keep everything, or when the contract has no operation
 * that stores animals. `npm run generate` and `npm run check` report these (through {@link petStorageGate}).
 */
export function petStorageGaps(doc: OpenApiDocument): string[] {
  const bodies = createPetBodies(doc);
  if (bodies === null) return [];
  const { sent, stored } = bodies;
  const gaps: string[] = [];
  const columns = new Set<string>([...STORE_ASSIGNED, ...Object.keys(PET_COLUMNS)]);
  for (const field of Object.keys(stored.properties)) {
    if (columns.has(field) || !stored.required.has(field)) continue;
    const always = sent.required.has(field) || sent.properties[field]?.default !== undefined;
    if (always) continue;
    const how = field in sent.properties ? 'NewPet has it but neither requires it nor gives it a default' : 'NewPet does not have it';
    const column = snakeCase(field);
    const examples = examplesLacking(doc, bodies.storedSchema, field);
    gaps.push(
      `Pet.${field} is required in every animal returned, but no store keeps it: ${how}, and it is not a column of pets. ` +
        `Make it optional in Pet, required or defaulted in NewPet, or give it a column with a default, which every animal already stored gets too ` +
        `(docs/designers.md, "A field every animal must have"): ` +
        `(1) a migration named "add pets.${column}" appended to MIGRATIONS in src/service/store/migrations.ts, ` +
        `such as ALTER TABLE pets ADD COLUMN ${column} TEXT NOT NULL DEFAULT 'a constant' (SQLite's ADD COLUMN takes no other default: no CURRENT_TIMESTAMP, no expression); ` +
        `(2) ${field}: '${column}' in PET_COLUMNS in src/service/store/pet-record.ts (the table's type and the row mapping follow from it); ` +
        `(3) the field in every animal of the examples ${examples.length > 0 ? examples.join(', ') : '(none lacks it)'} in openapi.yaml, which lint refuses without it; ` +
        `(4) npm run generate, then npm run check, which names any test that builds an animal without it.`,
    );
  }
  for (const field of Object.keys(sent.properties)) {
    if (field in stored.properties) continue;
    gaps.push(
      `NewPet.${field} is stored and returned with the animal, but Pet does not declare it, so every response holding it would break the contract. ` +
        `Add it to Pet, or remove it from NewPet.`,
    );
  }
  return gaps;
}

/** The gate as a plugin of `contract-kit generate` (contract-kit.config.ts): a field no store keeps stops generate writing anything. */
export const petStorageGate: GeneratePlugin = {
  name: 'pet-storage-check',
  run: ({ contract }) => ({ problems: petStorageGaps(contract) }),
};
