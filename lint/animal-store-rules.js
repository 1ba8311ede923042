/**
 * Redocly plugin with the lint rules of our own that configurable rules cannot express.
 * Loaded by redocly.yaml; each rule is switched on there.
 */

import { checkRegex, describeUnsafe } from './regex-safety.js';
import { requestSchemaProblems } from './schema-keywords.js';

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

const isIsoUtc = (value) => typeof value === 'string' && ISO_UTC.test(value) && !Number.isNaN(Date.parse(value));

/**
 * A deprecated operation says when it was deprecated (`x-deprecated-at`), when it goes away
 * (`x-sunset`, later), both ISO 8601 UTC, and which path replaces it (`x-successor`). The
 * server sends the Deprecation, Sunset and Link headers from these.
 */
function DeprecatedOperationHasSunset() {
  return {
    Operation(operation, ctx) {
      if (operation.deprecated !== true) return;
      const report = (message) => ctx.report({ message, location: ctx.location.child('deprecated') });
      if (!isIsoUtc(operation['x-sunset'])) {
        report('A deprecated operation must give its removal date in x-sunset (ISO 8601 UTC, e.g. 2030-12-05T00:00:00Z).');
      }
      if (!isIsoUtc(operation['x-deprecated-at'])) {
        report('A deprecated operation must give the date it was deprecated in x-deprecated-at (ISO 8601 UTC).');
      } else if (isIsoUtc(operation['x-sunset']) && Date.parse(operation['x-deprecated-at']) >= Date.parse(operation['x-sunset'])) {
        report('x-deprecated-at must come before x-sunset.');
      }
      if (typeof operation['x-successor'] !== 'string' || !operation['x-successor'].startsWith('/')) {
        report('A deprecated operation must name the path that replaces it in x-successor (e.g. /pets).');
      }
    },
  };
}

/** Every 4xx and 5xx response is a `$ref` to components/responses whose body is the Error schema. */
function ErrorResponseByReference() {
  return {
    Operation(operation, ctx) {
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        if (!/^[45]/.test(status)) continue;
        const ref = response && typeof response === 'object' ? response.$ref : undefined;
        if (typeof ref !== 'string' || !ref.startsWith('#/components/responses/')) {
          ctx.report({
            message: `Error response ${status} must be a $ref to #/components/responses/…, not written inline.`,
            location: ctx.location.child(['responses', status]),
          });
          continue;
        }
        const target = ctx.resolve(response).node;
        const schema = target?.content?.['application/json']?.schema;
        if (schema?.$ref !== '#/components/schemas/Error') {
          ctx.report({
            message: `Error response ${status} (${ref}) must have an application/json body whose schema is #/components/schemas/Error.`,
            location: ctx.location.child(['responses', status]),
          });
        }
      }
    },
  };
}

/**
 * Every `pattern` runs on every request that carries its field: one that can backtrack
 * super-linearly lets one client block the event loop (a 16 KB string can cost most of a second).
 * Each pattern is proved linear by recheck, in Unicode mode as the validator runs it.
 */
function PatternIsLinear() {
  const verdicts = new Map();
  return {
    Schema(schema, ctx) {
      if (typeof schema.pattern !== 'string') return;
      if (!verdicts.has(schema.pattern)) verdicts.set(schema.pattern, checkRegex(schema.pattern));
      const verdict = verdicts.get(schema.pattern);
      if (!verdict.safe) ctx.report({ message: describeUnsafe(schema.pattern, verdict), location: ctx.location.child('pattern') });
      // Some tools compile patterns without the u flag (fastify's serializer, for one): the
      // syntax must be valid both ways, though only Unicode mode gives the meaning.
      try {
        new RegExp(schema.pattern);
      } catch (error) {
        ctx.report({ message: `/${schema.pattern}/ is not valid without the u flag (${error.message}); write code points above U+FFFF without \\u{…}.`, location: ctx.location.child('pattern') });
      }
    },
  };
}

/**
 * The property tests generate every request from the contract's schemas
 * (test/property/schema-arbitraries.ts): a keyword or format in a request's schema that the
 * generator cannot honour is refused here, at its line and with its JSON pointer, instead of in a
 * crashing test. The list of what it can honour is one, in schema-keywords.js.
 */
function SchemaKeywordSupported() {
  return {
    Root(root, ctx) {
      for (const { path, message } of requestSchemaProblems(root)) {
        const location = ctx.location.child(path);
        ctx.report({ message: `${message} At ${location.pointer}.`, location: location.key() });
      }
    },
  };
}

export default function animalStoreRules() {
  return {
    id: 'animal-store',
    rules: {
      oas3: {
        'deprecated-operation-has-sunset': DeprecatedOperationHasSunset,
        'error-response-by-reference': ErrorResponseByReference,
        'pattern-is-linear': PatternIsLinear,
        'schema-keyword-supported': SchemaKeywordSupported,
      },
    },
  };
}
