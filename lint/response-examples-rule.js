/**
 * The rule of the Redocly plugin (animal-store-rules.js) that holds the mock's examples to their
 * operations: every example agrees with itself and with its operation.
 */
import { tsImport } from 'tsx/esm/api';

// The checks of a response's consistency are TypeScript, shared with the mock (see animal-store-rules.js).
const { exampleHeaders, namedExamples, operationInputs, responseProblems, unfitFields } = await tsImport(
  './response-examples.ts',
  import.meta.url,
);

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/**
 * Every example the mock can send agrees with itself and with its operation (the checks are in
 * lint/response-examples.ts): each example of each response of each operation, with the headers it
 * goes with, passes responseProblems; an example's `x-headers` name headers its response
 * declares; and an operation that declares 400 has a 400 example naming only inputs it has,
 * which is the one the mock answers `Prefer: code=400` with.
 */
export function ResponseExamplesConsistent() {
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
