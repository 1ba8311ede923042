import type { OpenApiDocument } from '../contract/document.js';
import type { Operation } from '../contract/operations.js';
import { addedMethodsClient } from './added-methods.js';
import { streamClient } from './stream-client.js';

/**
 * The typed client (openapi-fetch). Where path keys name a query parameter or a header after `#`
 * or `?` (see splitPathKey), a middleware sends the request as the server routes it: the path
 * before them, the query from the call's parameters, and what the path key names.
 */
function clientSource(header: string, operations: Operation[]): string {
  const shared = operations.filter((op) => op.path !== op.urlPath);
  const head = `${header}\nimport createClient, { type ClientOptions${shared.length > 0 ? ', type Middleware' : ''} } from 'openapi-fetch';\nimport type { paths } from './openapi.js';\n\n`;
  const doc = '/** A typed client of the contract (openapi-fetch): each call returns { data, error, response }. */\n';
  if (shared.length === 0)
    return `${head}${doc}export const createApiClient = (baseUrl: string, options: Omit<ClientOptions, 'baseUrl'> = {}) => createClient<paths>({ ...options, baseUrl });\n`;
  const table = Object.fromEntries(shared.map((op) => [op.path, op.dispatch.map((d) => [d.in, d.name, d.value])]));
  return (
    head +
    '/** What the path keys name after `#` or `?`: [in, name, value (null: any)], by path key. */\n' +
    `const SHARED_URLS: Record<string, ['query' | 'header', string, string | null][]> = ${JSON.stringify(table)};\n\n` +
    '/** Sends a call to a path key with `#` or `?` as the server routes it: its path, the query of the call, and what the key names. */\n' +
    'const sharedUrls: Middleware = {\n' +
    '  onRequest({ request, schemaPath, params }) {\n' +
    '    const dispatch = SHARED_URLS[schemaPath];\n' +
    '    if (!dispatch) return undefined;\n' +
    '    const url = new URL(request.url.split(/[?#]/)[0]!);\n' +
    '    for (const [name, value] of Object.entries(params.query ?? {}))\n' +
    '      for (const item of Array.isArray(value) ? value : [value]) if (item !== undefined) url.searchParams.append(name, String(item));\n' +
    '    const headers = new Headers(request.headers);\n' +
    '    for (const [where, name, value] of dispatch) {\n' +
    '      if (value === null) continue;\n' +
    "      if (where === 'query') url.searchParams.set(name, value);\n" +
    '      else headers.set(name, value);\n' +
    '    }\n' +
    '    return new Request(url, new Request(request, { headers }));\n' +
    '  },\n' +
    '};\n\n' +
    doc +
    "export function createApiClient(baseUrl: string, options: Omit<ClientOptions, 'baseUrl'> = {}) {\n" +
    '  const client = createClient<paths>({ ...options, baseUrl });\n' +
    '  client.use(sharedUrls);\n' +
    '  return client;\n' +
    '}\n'
  );
}

/**
 * The client files `contract-kit generate` writes: `client.ts` (createApiClient; createStreams
 * where the contract has streams; createOperations where it has operations of methods
 * openapi-fetch calls by no name) and then `streams.ts`, which createStreams reads and sends
 * items with. `header` opens each file.
 */
export function renderClient(doc: OpenApiDocument, operations: Operation[], header: string): Record<string, string> {
  const client = clientSource(header, operations);
  const streams = streamClient(doc, operations);
  const added = addedMethodsClient(operations);
  if (!streams && !added) return { 'client.ts': client };
  const imports = [
    `import type { ${added ? 'FetchResponse, ' : ''}MaybeOptionalInit } from 'openapi-fetch';`,
    `import type { ${added ? 'components, ' : ''}paths } from './openapi.js';`,
    ...(streams ? [`import { ${streams.imports.join(', ')} } from './streams.js';`] : []),
  ];
  return {
    'client.ts':
      client.replace("import type { paths } from './openapi.js';\n", `${imports.join('\n')}\n`) + (streams?.client ?? '') + (added ?? ''),
    ...(streams ? { 'streams.ts': streams.reader } : {}),
  };
}
