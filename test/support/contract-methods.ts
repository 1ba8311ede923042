import { loadSpec, type OpenApiDocument } from '../../src/contract/load-spec.js';
import { HTTP_METHODS } from 'contract-kit';

/** The methods the contract has at `path` (`/pets/{petId}`), upper case; HEAD wherever GET is (RFC 9110). */
function methodsAt(path: string, doc: OpenApiDocument): string[] {
  const item = doc.paths[path];
  if (!item) throw new Error(`the contract has no path ${path}`);
  const methods = HTTP_METHODS.filter((m) => item[m] !== undefined).map((m) => m.toUpperCase());
  if (methods.includes('GET') && !methods.includes('HEAD')) methods.push('HEAD');
  return methods.sort();
}

/** The Allow header a 405 at `path` must carry, from the contract: its methods, alphabetical. */
export function allowAt(path: string, doc: OpenApiDocument = loadSpec()): string {
  return methodsAt(path, doc).join(', ');
}

/** A method the contract does not have at `path`, to be refused with 405 there. */
export function methodNotAt(path: string, doc: OpenApiDocument = loadSpec()): string {
  const methods = methodsAt(path, doc);
  const method = ['PATCH', 'PUT', 'DELETE', 'POST'].find((m) => !methods.includes(m));
  if (!method) throw new Error(`the contract has every method at ${path}`);
  return method;
}
