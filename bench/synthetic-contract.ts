/**
 * The contracts of the bench's scale lines: `paths` paths, half lists (`/things7?limit=20`) and
 * half items (`/things7/{id}`), each with its own schemas, so that a validator or router that
 * works per path of the contract shows it. The measured request is a list of the last path.
 */
import type { OpenApiDocument } from 'contract-kit';
import { firstAnimals } from './animals.js';

/** The list the measured operation answers: the bench's 20 animals. */
export const SYNTHETIC_BODY = firstAnimals(20);

/** The request measured on a contract of `paths` paths: a list of the last of them. */
export const syntheticPath = (paths: number) => `/v1/things${paths / 2 - 1}?limit=20`;

/** A contract of `paths` paths (an even number, at least 2). */
export function syntheticContract(paths: number): OpenApiDocument {
  const doc: OpenApiDocument = {
    openapi: '3.1.0',
    info: { title: `Synthetic contract of ${paths} paths`, version: '1.0.0' },
    servers: [{ url: '/v1' }],
    paths: {},
    components: { schemas: {} },
  };
  for (let i = 0; i < paths / 2; i++) {
    doc.components!.schemas![`Thing${i}`] = {
      type: 'object',
      additionalProperties: false,
      required: ['id', 'name', 'categoryId', 'status'],
      properties: {
        id: { type: 'integer', minimum: 1 },
        name: { type: 'string', minLength: 1, maxLength: 100 },
        categoryId: { type: 'integer', minimum: 1 },
        status: { type: 'string', enum: ['available', 'pending', 'sold'] },
      },
    };
    const thing = { $ref: `#/components/schemas/Thing${i}` };
    doc.paths![`/things${i}`] = {
      get: {
        operationId: `listThings${i}`,
        parameters: [{ name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 100 } }],
        responses: { '200': { description: 'Things', content: { 'application/json': { schema: { type: 'array', items: thing } } } } },
      },
    };
    doc.paths![`/things${i}/{id}`] = {
      get: {
        operationId: `getThing${i}`,
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer', minimum: 1 } }],
        responses: { '200': { description: 'A thing', content: { 'application/json': { schema: thing } } } },
      },
    };
  }
  return doc;
}

/** PATHS from the environment of a bench server process. */
export function pathsFromEnvironment(): number {
  const paths = Number(process.env.PATHS);
  if (!Number.isInteger(paths) || paths < 2 || paths % 2 !== 0)
    throw new Error(`PATHS must be an even number of at least 2, not ${process.env.PATHS}`);
  return paths;
}
