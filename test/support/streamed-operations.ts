import { listOperations, type OpenApiDocument } from 'contract-kit';

/**
 * The operations of `doc` that answer with a stream (OpenAPI 3.2 `itemSchema`: GET /pets/feed),
 * by name: an answer that stays open, read until it goes quiet.
 */
export function streamedOperations(doc: OpenApiDocument): Set<string> {
  return new Set(
    listOperations(doc)
      .filter((op) => Object.values(op.responses).some((r) => Object.values(r.content).some((media) => media.itemSchema !== undefined)))
      .map((op) => op.name),
  );
}
