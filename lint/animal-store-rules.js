/**
 * Redocly plugin with the lint rules of our own that configurable rules cannot express.
 * Loaded by redocly.yaml; each rule is switched on there.
 */

import { checkRegex, describeUnsafe } from './regex-safety.js';
import { ResponseExamplesConsistent } from './response-examples-rule.js';
import { tsImport } from 'tsx/esm/api';

// What the property tests require of an operation's responses is TypeScript, shared with them.
// Redocly imports this plugin with Node.js's own import(), which reads TypeScript unflagged only
// from 22.18: tsx's tsImport loads the module on every Node.js the project supports (22.12 and later).
const { REFUSALS, refusalsOf, undeclaredRefusal } = await tsImport('./refusals.ts', import.meta.url);

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

/**
 * Only a deprecated operation's responses declare `Deprecation` and `Sunset`: the headers come
 * from the operation's own x-deprecated-at and x-sunset, so a response that declares them is the
 * deprecated operation's alone (getPet's GetPetNotFound), never one a new operation reuses.
 */
function DeprecationHeadersOnlyWhenDeprecated() {
  return {
    Operation(operation, ctx) {
      if (operation.deprecated === true) return;
      for (const [status, raw] of Object.entries(operation.responses ?? {})) {
        const headers = Object.keys(ctx.resolve(raw).node?.headers ?? {});
        const declared = headers.filter((h) => ['deprecation', 'sunset'].includes(h.toLowerCase()));
        if (declared.length === 0) continue;
        const name = typeof raw?.$ref === 'string' ? ` (${raw.$ref.split('/').pop()})` : '';
        ctx.report({
          message: `${operation.operationId ?? 'This operation'} is not deprecated, but its ${status} response${name} declares ${declared.join(' and ')}: use a response without the deprecation headers.`,
          location: ctx.location.child(['responses', status]),
        });
      }
    },
  };
}

/**
 * Every operation declares the refusals the service gives any operation of its kind (400; 401
 * when it needs a key; 415 when it takes a body), by their own status, as the property tests
 * require, in their words (lint/refusals.ts).
 */
function OperationDeclaresRefusals() {
  let contractSecurity;
  return {
    Root(root) {
      contractSecurity = root.security;
    },
    Operation(operation, ctx) {
      for (const refusal of refusalsOf(operation, contractSecurity)) {
        if (String(REFUSALS[refusal].status) in (operation.responses ?? {})) continue;
        ctx.report({
          message: undeclaredRefusal(operation.operationId ?? 'This operation', refusal),
          location: ctx.location.child('responses'),
        });
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
        ctx.report({
          message: `/${schema.pattern}/ is not valid without the u flag (${error.message}); write code points above U+FFFF without \\u{…}.`,
          location: ctx.location.child('pattern'),
        });
      }
    },
  };
}

/**
 * An integer header is an int64: its values are counts agreed per key (an Enterprise key may have
 * 5,000,000,000 requests a minute) and Unix timestamps (past 2^31 in 2038), which a client
 * generated to int32, the width many generators pick for an integer without a format, would
 * overflow.
 */
function IntegerHeadersAreInt64() {
  return {
    Header(header, ctx) {
      const { node: schema, location } = ctx.resolve(header.schema);
      if (!schema || ![schema.type].flat().includes('integer') || schema.format === 'int64') return;
      ctx.report({
        message: `An integer header must say \`format: int64\`${schema.format ? `, not ${schema.format}` : ''}: its values may pass 2^31.`,
        location: (header.schema && '$ref' in header.schema ? location : ctx.location.child('schema')) ?? ctx.location,
      });
    },
  };
}

export default function animalStoreRules() {
  return {
    id: 'animal-store',
    rules: {
      oas3: {
        'deprecated-operation-has-sunset': DeprecatedOperationHasSunset,
        'deprecation-headers-only-when-deprecated': DeprecationHeadersOnlyWhenDeprecated,
        'error-response-by-reference': ErrorResponseByReference,
        'integer-headers-int64': IntegerHeadersAreInt64,
        'operation-declares-refusals': OperationDeclaresRefusals,
        'pattern-is-linear': PatternIsLinear,
        'response-examples-consistent': ResponseExamplesConsistent,
      },
    },
  };
}
