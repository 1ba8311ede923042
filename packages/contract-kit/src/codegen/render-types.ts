import { pathToFileURL } from 'node:url';
import openapiTS, { astToString, type OpenAPI3 } from 'openapi-typescript';
import { isOpenApi32, type OpenApiDocument } from '../contract/document.js';
import { listOperations } from '../contract/operations.js';
import { hoistDeepSchemaRefs } from '../contract/deep-refs.js';
import { isAddedMethod } from '../contract/methods.js';
import { streamsAsItems } from '../contract/openapi-3.2.js';
import { querystringsAsQuery } from '../contract/querystring.js';
import { addedMethodPlace, addedMethodsAsPathItems } from './added-methods.js';
import { streamedAnswers, streamedRequests } from '../server/stream-media.js';

/**
 * The types of a contract: openapi-typescript's (`paths`, `webhooks`, `components`,
 * `operations`: the webhooks typed for the code that sends them), and `Operations`, each
 * operation's type by the name its handler goes by, which `Handlers<Operations, Context>` checks
 * a handler map against. A schema a `$ref` reaches inside another is typed as a component of its
 * own (see hoistDeepSchemaRefs). `header` opens each file (say there what wrote it).
 */
export async function renderTypes(
  contractPath: string,
  doc: OpenApiDocument,
  header: string,
): Promise<{ openapi: string; operations: string }> {
  // The contract as loaded (its other files bundled in) where a $ref reaches inside a schema, which
  // openapi-typescript would write as a type that does not compile, and for OpenAPI 3.2, whose
  // media types by $ref it does not know (loadContract inlines them), and whose streams it types
  // as `unknown`: a stream's media type is typed as one of its items (streamsAsItems), and an
  // operation of a method it does not type (QUERY) as a path item's (addedMethodsAsPathItems), and a
  // parameter in: querystring as the query parameters it stands for (querystringsAsQuery); else its file.
  const hoisted = hoistDeepSchemaRefs(doc);
  const given = isOpenApi32(doc)
    ? (addedMethodsAsPathItems(querystringsAsQuery(streamsAsItems(hoisted ?? doc))) as OpenAPI3)
    : ((hoisted as OpenAPI3 | undefined) ?? pathToFileURL(contractPath));
  const ast = await openapiTS(given, { alphabetize: false, defaultNonNullable: false });
  const operations = listOperations(doc, contractPath);
  const lines = operations.map((op) => {
    const title = op.summary ? `${op.summary}: ` : '';
    // An operation with a stream (3.2 itemSchema) is marked: its sequential media types are typed as streams of items.
    const streams = streamedAnswers(doc, op).size > 0 || streamedRequests(doc, op).size > 0;
    const place = addedMethodPlace(op);
    const type = isAddedMethod(op.method)
      ? `components["pathItems"][${JSON.stringify(place.item)}][${JSON.stringify(place.method)}]`
      : `paths[${JSON.stringify(op.path)}][${JSON.stringify(op.method)}]`;
    return `  /** ${title}${op.method.toUpperCase()} ${op.path.replace(/\*\//g, '*\\/')} */\n  ${op.name}: ${type}${streams ? ' & StreamsMark' : ''};\n`;
  });
  const marked = lines.some((line) => line.includes(' & StreamsMark;'));
  // What the lines name of openapi.ts: nothing, for a contract of no operation.
  const named = [
    ...(operations.some((op) => isAddedMethod(op.method)) ? ['components'] : []),
    ...(operations.some((op) => !isAddedMethod(op.method)) ? ['paths'] : []),
  ];
  return {
    openapi: `${header}\n${astToString(ast)}`,
    operations:
      `${header}\n${marked ? "import type { StreamsMark } from 'contract-kit';\n" : ''}${named.length > 0 ? `import type { ${named.join(', ')} } from './openapi.js';\n` : ''}\n` +
      '/** Each operation of the contract, by the name its handler goes by. */\n' +
      `export interface Operations {\n${lines.join('')}}\n`,
  };
}
