import { escapePointer, unescapePointer, type OpenApiDocument } from '../contract/document.js';
import { visit } from './schema-fixes.js';

/** The keywords whose schemas Ajv fills no defaults from (its useDefaults option), when written inline. */
const ALTERNATIVES = ['anyOf', 'oneOf', 'not', 'if'] as const;

/** What a component schema's copy without defaults is named: a name no contract's is likely to be. */
const WITHOUT_DEFAULTS = '.withoutDefaults';

/**
 * Makes the schemas a validator's document reaches from inside `anyOf`, `oneOf`, `not` and `if`
 * fill in no defaults, in place, as Ajv does for those written there: the validator fills in
 * defaults while it checks a request, and Ajv fills in those of a schema it compiles apart (one
 * a `$ref` names that has `$ref`s of its own) while it tries that branch, so one branch's
 * defaults went into a value of another and had it refused (a Wi-Fi branch's `hidden: false` in
 * an e-mail, refused by the e-mail's `additionalProperties: false`). Inline schemas there lose
 * their defaults; a component they name is named through a copy without them, so the same
 * component used elsewhere keeps its defaults.
 */
export function leaveOutDefaultsInAlternatives(document: OpenApiDocument): void {
  const schemas = document.components?.schemas ?? {};
  const named = (schema: Record<string, unknown>) => {
    const name = typeof schema.$ref === 'string' ? /^#\/components\/schemas\/([^/]+)$/.exec(schema.$ref)?.[1] : undefined;
    return name === undefined || schemas[unescapePointer(name)] === undefined ? undefined : unescapePointer(name);
  };
  // Whether a component has a default, or names one that has, anywhere: only such a one is copied.
  const withDefaults = new Map<string, boolean>();
  const hasDefaults = (name: string): boolean => {
    const known = withDefaults.get(name);
    if (known !== undefined) return known;
    const seen = new Set<string>();
    const found = (next: string): boolean => {
      if (seen.has(next)) return false;
      seen.add(next);
      let any = false;
      visit(schemas[next], (schema) => {
        const target = named(schema);
        any ||= 'default' in schema || (target !== undefined && found(target));
      });
      return any;
    };
    const result = found(name);
    withDefaults.set(name, result);
    return result;
  };
  const copies = new Map<string, string>();
  const withoutDefaults = (branch: unknown) =>
    visit(branch, (schema) => {
      delete schema.default;
      const name = named(schema);
      if (name === undefined || name.endsWith(WITHOUT_DEFAULTS) || !hasDefaults(name)) return;
      let copy = copies.get(name);
      if (copy === undefined) {
        copy = `${name}${WITHOUT_DEFAULTS}`;
        copies.set(name, copy);
        schemas[copy] = structuredClone(schemas[name]);
        withoutDefaults(schemas[copy]);
      }
      schema.$ref = `#/components/schemas/${escapePointer(copy)}`;
    });
  visit(document, (schema) => {
    for (const keyword of ALTERNATIVES) {
      const value = schema[keyword];
      // The validator picks a discriminator's branch by its property and tries no other.
      if (Array.isArray(value) && schema.discriminator === undefined) for (const branch of value) withoutDefaults(branch);
      else if (!Array.isArray(value) && typeof value === 'object' && value !== null) withoutDefaults(value);
    }
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
