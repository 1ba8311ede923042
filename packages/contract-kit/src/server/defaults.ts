import type { OpenApiDocument } from '../contract/document.js';
import { visit } from './schema-fixes.js';

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
