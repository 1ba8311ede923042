import { resolveRef, type OpenApiDocument } from '../contract/document.js';
import { visit } from './schema-fixes.js';

/**
 * Leaves out of a validator's document, in place, each `default` of a schema it reaches from
 * inside an `anyOf`, `oneOf` or `not`, through `$ref`s too. The validator fills in defaults while
 * it checks a request; Ajv ignores those written inside such a keyword, but fills in those of a
 * schema it compiles apart (one a `$ref` names that has `$ref`s of its own) while it tries that
 * branch, so one branch's defaults went into a value of another and had it refused (a Wi-Fi
 * branch's `hidden: false` in an e-mail, refused by the e-mail's `additionalProperties: false`).
 */
export function leaveOutDefaultsInAlternatives(document: OpenApiDocument): void {
  const done = new Set<object>();
  const leaveOut = (branch: unknown) =>
    visit(branch, (schema) => {
      if (done.has(schema)) return;
      done.add(schema);
      delete schema.default;
      if (typeof schema.$ref !== 'string') return;
      try {
        leaveOut(resolveRef(document, { $ref: schema.$ref }));
      } catch {
        // A $ref to nothing: the validator says so when it compiles the schema.
      }
    });
  visit(document, (schema) => {
    for (const keyword of ['anyOf', 'oneOf'] as const) {
      const branches = schema[keyword];
      if (Array.isArray(branches)) for (const branch of branches) leaveOut(branch);
    }
    if (typeof schema.not === 'object' && schema.not !== null) leaveOut(schema.not);
  });
}

/**
 * Leaves out of a validator's document, in place, each `default` that its own schema refuses
 * (`format: email` with a default of `""`, an array of arrays with a default of strings): the
 * validator puts a default into every request that leaves its value out, so a contract's refused
 * default would have every such request refused for a value it never sent. The default of a
 * `readOnly` schema goes too, silently: put into a request, it would be refused as read-only.
 * Returns those refused and left out, as JSON, by where each was: a path key of the document, or
 * `#/components/{kind}/{name}`.
 */
export function leaveOutRefusedDefaults(
  document: OpenApiDocument,
  fits: (schema: unknown, value: unknown) => boolean,
): Map<string, string[]> {
  const left = new Map<string, string[]>();
  const places: [string, unknown][] = [
    ...Object.entries(document.paths ?? {}),
    ...Object.entries(document.components ?? {}).flatMap(([kind, named]) =>
      Object.entries(named ?? {}).map(([name, node]): [string, unknown] => [`#/components/${kind}/${name}`, node]),
    ),
  ];
  for (const [where, node] of places)
    visit(node, (schema) => {
      if (!('default' in schema)) return;
      if (schema.readOnly === true) {
        delete schema.default;
        return;
      }
      const { default: value, ...rest } = schema;
      if (fits(rest, value)) return;
      delete schema.default;
      left.set(where, [...(left.get(where) ?? []), JSON.stringify(value)]);
    });
  return left;
}
