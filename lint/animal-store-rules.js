/**
 * Redocly plugin with the lint rules of our own that configurable rules cannot express.
 * Loaded by redocly.yaml; each rule is switched on there.
 */

import { checkRegex, describeUnsafe } from './regex-safety.js';
import { tsImport } from 'tsx/esm/api';

// The checks of a response's consistency are TypeScript, shared with the mock. Redocly imports
// this plugin with Node.js's own import(), which reads TypeScript unflagged only from 22.18:
// tsx's tsImport loads the module on every Node.js the project supports (22.12 and later).
const { exampleHeaders, namedExamples, operationInputs, responseProblems, unfitFields } = await tsImport(
  '../src/contract/response-examples.ts',
  import.meta.url,
);
const { REFUSALS, refusalsOf, undeclaredRefusal } = await tsImport('../src/contract/refusals.ts', import.meta.url);

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
 * require, in their words (src/contract/refusals.ts).
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

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/**
 * Every example the mock can send agrees with itself and with its operation (the checks are in
 * src/contract/response-examples.ts): each example of each response of each operation, with the headers it
 * goes with, passes responseProblems; an example's `x-headers` name headers its response
 * declares; and an operation that declares 400 has a 400 example naming only inputs it has,
 * which is the one the mock answers `Prefer: code=400` with.
 */
function ResponseExamplesConsistent() {
  const reported = new Set();
  return {
    PathItem(pathItem, ctx) {
      const report = (message, location) => {
        const key = `${location.source.absoluteRef}${location.pointer} ${message}`;
        if (reported.has(key)) return;
        reported.add(key);
        ctx.report({ message, location });
      };
      // A $ref'd node is reported where it is written; an inline one under its parent.
      const follow = (node, inlineLocation) => {
        const resolved = ctx.resolve(node);
        return { node: resolved.node, location: node && typeof node === 'object' && '$ref' in node ? resolved.location : inlineLocation };
      };
      const resolve = (node) => ctx.resolve(node).node;
      for (const method of METHODS) {
        const operation = pathItem[method];
        if (!operation || typeof operation !== 'object') continue;
        const name = operation.operationId ?? `${method.toUpperCase()} ${ctx.key}`;
        const inputs = operationInputs(pathItem, operation, resolve);
        const operationLocation = ctx.location.child([method]);
        const operationAt = { name, inputs, operationLocation, report, follow, resolve };
        for (const [code, raw] of Object.entries(operation.responses ?? {})) checkResponseExamples(code, raw, operationAt);
      }
    },
  };
}

/**
 * One response of an operation, for ResponseExamplesConsistent: each example passes
 * responseProblems, names in `x-headers` only headers the response declares, and a 400 has an
 * example naming only inputs the operation has.
 */
function checkResponseExamples(code, raw, { name, inputs, operationLocation, report, follow, resolve }) {
  const status = Number(code);
  if (!Number.isInteger(status)) return;
  const { node: response, location } = follow(raw, operationLocation.child(['responses', code]));
  if (!response || typeof response !== 'object' || !location) return;
  const examples = namedExamples(response, resolve);
  const rawExamples = response.content?.['application/json']?.examples ?? {};
  if (examples.length === 0) {
    for (const problem of responseProblems({ status, headers: exampleHeaders(response, undefined, resolve), body: undefined })) {
      report(`${status} response: ${problem}.`, location);
    }
  }
  const fitting = [];
  for (const [exampleName, example] of examples) {
    const exampleAt =
      follow(rawExamples[exampleName], location.child(['content', 'application/json', 'examples', exampleName])).location ?? location;
    for (const header of Object.keys(example?.['x-headers'] ?? {})) {
      if (!Object.keys(response.headers ?? {}).some((h) => h.toLowerCase() === header.toLowerCase())) {
        report(
          `${exampleName}: x-headers gives ${header}, which the ${status} response does not declare.`,
          exampleAt.child(['x-headers', header]),
        );
      }
    }
    const observed = { status, headers: exampleHeaders(response, example, resolve), body: example?.value };
    for (const problem of responseProblems(observed)) report(`${exampleName} (${status}): ${problem}.`, exampleAt);
    if (unfitFields(example?.value, inputs).length === 0) fitting.push(exampleName);
  }
  if (status === 400 && examples.length > 0 && fitting.length === 0) {
    const named = examples.map(([exampleName, example]) => `${exampleName} (${unfitFields(example?.value, inputs).join(', ')})`);
    report(
      `${name} declares 400 but none of its examples names only inputs ${name} has: ${named.join('; ')}. Add an example the mock can answer Prefer: code=400 with.`,
      operationLocation.child(['responses', code]),
    );
  }
}

export default function animalStoreRules() {
  return {
    id: 'animal-store',
    rules: {
      oas3: {
        'deprecated-operation-has-sunset': DeprecatedOperationHasSunset,
        'deprecation-headers-only-when-deprecated': DeprecationHeadersOnlyWhenDeprecated,
        'error-response-by-reference': ErrorResponseByReference,
        'operation-declares-refusals': OperationDeclaresRefusals,
        'pattern-is-linear': PatternIsLinear,
        'response-examples-consistent': ResponseExamplesConsistent,
      },
    },
  };
}
