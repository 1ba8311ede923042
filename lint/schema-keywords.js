/**
 * The JSON Schema keywords and formats that the property-test generator
 * (test/property/schema-arbitraries.ts) makes values for: values the schema accepts, and values
 * that break each keyword on purpose. One list for its two users: the generator refuses anything
 * else when it builds its arbitraries, and the lint rule `animal-store/schema-keyword-supported`
 * refuses it first, in openapi.yaml, at the keyword's line, so that a designer hears of it from
 * `npm run lint` and not from a test that crashes.
 * @see https://json-schema.org/draft/2020-12/json-schema-validation
 */

/**
 * Keywords that constrain a value: the generator honours each one in the values it calls valid
 * and has a way of breaking each one (test/property/schema-keywords.test.ts holds a schema per
 * keyword and checks both with ajv).
 */
export const GENERATED_KEYWORDS = [
  '$ref',
  'type',
  'enum',
  'const',
  'multipleOf',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'minLength',
  'maxLength',
  'pattern',
  'format',
  'items',
  'prefixItems',
  'minItems',
  'maxItems',
  'uniqueItems',
  'properties',
  'required',
  'additionalProperties',
  'minProperties',
  'maxProperties',
  'allOf',
  'anyOf',
  'oneOf',
  'not',
];

/**
 * Keywords that constrain nothing a validator checks: annotations, `$defs` (it only holds
 * schemas for `$ref`s to name), and the content keywords, which JSON Schema 2020-12 makes
 * annotations. `writeOnly` is one because only responses are checked against it.
 */
export const IGNORED_KEYWORDS = [
  'title',
  'description',
  'summary',
  'default',
  'example',
  'examples',
  'deprecated',
  'writeOnly',
  '$comment',
  '$defs',
  'externalDocs',
  'xml',
  'contentMediaType',
  'contentEncoding',
  'contentSchema',
];

/** The formats the generator makes values for, with the JSON type each applies to. */
export const GENERATED_FORMATS = {
  int32: 'integer',
  int64: 'integer',
  float: 'number',
  double: 'number',
  'date-time': 'string',
  date: 'string',
  time: 'string',
  uuid: 'string',
  email: 'string',
  uri: 'string',
  hostname: 'string',
  ipv4: 'string',
  ipv6: 'string',
  byte: 'string',
  password: 'string',
};

/** Why a keyword is refused, where there is more to say than that the generator lacks it. */
const WHY = {
  nullable: "nullable is OpenAPI 3.0's, not a JSON Schema keyword: in 3.1 validators ignore it; write type: [<type>, 'null'] instead",
  discriminator:
    "the server's validator picks the oneOf branch by the discriminator's property instead of trying every branch, which the generator does not model",
  readOnly:
    "the server's validator refuses readOnly properties in requests although the schema accepts them, which the generator does not model",
  $id: 'it changes the base that $refs resolve against; the generator follows only $refs into this document (#/...)',
  $schema: 'the contract is JSON Schema 2020-12 throughout; the generator knows no other dialect',
};

const KNOWN = new Set([...GENERATED_KEYWORDS, ...IGNORED_KEYWORDS]);

/**
 * What the generator cannot handle in one schema object (not its subschemas: a caller visits
 * those itself). Extensions (`x-…`) are allowed.
 * @returns one `{ keyword, message }` per problem; empty when the generator handles the schema.
 */
export function unsupportedKeywords(schema) {
  if (!schema || typeof schema !== 'object' || Array.isArray(schema)) return [];
  const problems = [];
  for (const keyword of Object.keys(schema)) {
    if (KNOWN.has(keyword) || keyword.startsWith('x-')) continue;
    const why = WHY[keyword] ? `: ${WHY[keyword]}` : '';
    problems.push({
      keyword,
      message: `Schema keyword "${keyword}" is not supported by the property-test generator (test/property/schema-arbitraries.ts)${why}.`,
    });
  }
  if ('format' in schema && !Object.hasOwn(GENERATED_FORMATS, schema.format)) {
    problems.push({
      keyword: 'format',
      message: `Format "${schema.format}" is not one the property-test generator makes values for (${Object.keys(GENERATED_FORMATS).join(', ')}).`,
    });
  }
  if (typeof schema.$ref === 'string' && !schema.$ref.startsWith('#/')) {
    problems.push({
      keyword: '$ref',
      message: `$ref "${schema.$ref}" leaves the document; the property-test generator follows only local $refs (#/…).`,
    });
  }
  return problems;
}

/** Where each keyword keeps its subschemas: one schema, a list of them, or a map of names to them. */
const SUBSCHEMAS = {
  items: 'one',
  not: 'one',
  additionalProperties: 'one',
  contains: 'one',
  propertyNames: 'one',
  if: 'one',
  then: 'one',
  else: 'one',
  unevaluatedItems: 'one',
  unevaluatedProperties: 'one',
  contentSchema: 'one',
  prefixItems: 'list',
  allOf: 'list',
  anyOf: 'list',
  oneOf: 'list',
  properties: 'map',
  patternProperties: 'map',
  dependentSchemas: 'map',
  $defs: 'map',
};

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/**
 * Every problem the generator would meet in the schemas of the document's requests (parameters
 * and request bodies, with every schema they reach through `$ref`s), each with the path from the
 * document's root to the keyword: the keywords and formats {@link unsupportedKeywords} refuses,
 * and `$ref`s that lead back into a schema they are inside (a schema containing itself, which
 * the generator cannot unfold). Each schema is reported once, however many requests use it.
 * Response schemas are not generated, so they are free to use anything.
 * @returns `{ path, message }` per problem, in document order.
 */
export function requestSchemaProblems(doc) {
  const problems = [];
  const state = new Map();
  const schema = (node, path) => {
    if (!node || typeof node !== 'object') return;
    const key = JSON.stringify(path.map(String));
    if (state.has(key)) return;
    state.set(key, 'open');
    for (const { keyword, message } of unsupportedKeywords(node)) problems.push({ path: [...path, keyword], message });
    if (typeof node.$ref === 'string' && node.$ref.startsWith('#/')) {
      const target = refPath(node.$ref);
      if (state.get(JSON.stringify(target)) === 'open') {
        problems.push({
          path: [...path, '$ref'],
          message: `$ref "${node.$ref}" leads back into a schema it is inside; the property-test generator cannot unfold recursive schemas.`,
        });
      } else {
        schema(nodeAt(doc, target), target);
      }
    }
    for (const [keyword, shape] of Object.entries(SUBSCHEMAS)) {
      const value = node[keyword];
      if (!value || typeof value !== 'object') continue;
      if (shape === 'one') schema(value, [...path, keyword]);
      else if (shape === 'list' && Array.isArray(value)) value.forEach((sub, i) => schema(sub, [...path, keyword, i]));
      else if (shape === 'map') for (const [name, sub] of Object.entries(value)) schema(sub, [...path, keyword, name]);
    }
    state.set(key, 'done');
  };
  for (const [node, path] of requestSchemas(doc)) schema(node, path);
  return problems;
}

/** The schema of every request body and parameter of the document, with its path: per path item, the bodies, then the parameters. */
function* requestSchemas(doc) {
  for (const [route, rawItem] of Object.entries(doc?.paths ?? {})) {
    const [item, itemPath] = followRefs(doc, rawItem, ['paths', route]);
    if (!item || typeof item !== 'object') continue;
    const parameterLists = [[item.parameters, [...itemPath, 'parameters']]];
    for (const method of METHODS) {
      const [operation, operationPath] = followRefs(doc, item[method], [...itemPath, method]);
      if (!operation || typeof operation !== 'object') continue;
      parameterLists.push([operation.parameters, [...operationPath, 'parameters']]);
      const [body, bodyPath] = followRefs(doc, operation.requestBody, [...operationPath, 'requestBody']);
      for (const [type, media] of Object.entries(body?.content ?? {})) yield [media?.schema, [...bodyPath, 'content', type, 'schema']];
    }
    for (const [list, listPath] of parameterLists) {
      if (!Array.isArray(list)) continue;
      for (const [i, raw] of list.entries()) {
        const [parameter, parameterPath] = followRefs(doc, raw, [...listPath, i]);
        yield [parameter?.schema, [...parameterPath, 'schema']];
      }
    }
  }
}

/** The node at `path` from the document's root, or undefined. */
const nodeAt = (doc, path) => path.reduce((node, key) => (node && typeof node === 'object' ? node[key] : undefined), doc);

/** The path a local `$ref` (`#/components/...`) points to. */
const refPath = (ref) =>
  ref
    .slice(2)
    .split('/')
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'));

/** Follows a chain of local $refs to the object it ends at, with that object's path. */
function followRefs(doc, node, path) {
  const seen = new Set();
  while (node && typeof node === 'object' && typeof node.$ref === 'string' && node.$ref.startsWith('#/') && !seen.has(node.$ref)) {
    seen.add(node.$ref);
    path = refPath(node.$ref);
    node = nodeAt(doc, path);
  }
  return [node, path];
}
