import { describe, expect, it } from 'vitest';
import { lengthBeforePattern } from '../src/server/length-before-pattern.js';
import type { OpenApiDocument } from 'contract-kit';

const limited = { type: 'string', maxLength: 5, pattern: '^a+$' };
const guarded = { type: 'string', maxLength: 5, if: { maxLength: 5 }, then: { pattern: '^a+$' } };

describe('lengthBeforePattern', () => {
  it('guards every pattern that has a maxLength, wherever a schema stands, and leaves data alone', () => {
    const doc = {
      openapi: '3.1.0',
      info: { title: 't', version: '1' },
      paths: {
        '/x': {
          get: {
            parameters: [{ name: 'q', in: 'query', schema: limited }],
            responses: { default: { description: 'd', content: { 'application/json': { schema: limited } } } },
          },
        },
      },
      components: {
        schemas: {
          // Properties named like data keywords are schemas all the same.
          Named: { type: 'object', properties: { default: limited, enum: limited, example: limited } },
          // The keywords themselves hold data: a `pattern` there is a value.
          Data: { type: 'object', default: limited, example: limited, enum: [limited] },
          AlreadyConditional: { ...limited, if: { minLength: 1 }, then: { maxLength: 4 } },
        },
      },
    } as unknown as OpenApiDocument;
    const out = lengthBeforePattern(doc) as unknown as Record<string, any>;
    const get = out.paths['/x'].get;
    expect(get.parameters[0].schema).toEqual(guarded);
    expect(get.responses.default.content['application/json'].schema).toEqual(guarded);
    expect(out.components.schemas.Named.properties).toEqual({ default: guarded, enum: guarded, example: guarded });
    expect(out.components.schemas.Data).toEqual({ type: 'object', default: limited, example: limited, enum: [limited] });
    expect(out.components.schemas.AlreadyConditional).toEqual({
      type: 'string',
      maxLength: 5,
      if: { minLength: 1 },
      then: { maxLength: 4 },
      allOf: [{ if: { maxLength: 5 }, then: { pattern: '^a+$' } }],
    });
    // The document given is not changed.
    expect((doc.paths!['/x']!.get as any).parameters[0].schema).toBe(limited);
  });
});
