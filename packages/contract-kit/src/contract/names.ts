/** Words JavaScript reserves: an operation cannot be exported under one (`export const delete`). */
const RESERVED = new Set(
  (
    'break case catch class const continue debugger default delete do else enum export extends false finally for function if ' +
    'import in instanceof new null return super switch this throw true try typeof var void while with yield let static ' +
    'implements interface package private protected public await arguments eval'
  ).split(' '),
);

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

const capitalised = (word: string) => word.charAt(0).toUpperCase() + word.slice(1);

/** `find book-by id` → `findBookById`; a leading digit gets an underscore before it. */
function camelCase(text: string): string {
  const words = text.split(/[^A-Za-z0-9]+/).filter(Boolean);
  const joined = words.map((word, i) => (i === 0 ? word.charAt(0).toLowerCase() + word.slice(1) : capitalised(word))).join('');
  return /^[0-9]/.test(joined) ? `_${joined}` : joined;
}

/** `GET /stations/{id}/trips` → `getStationsByIdTrips`. */
function nameFromRoute(method: string, path: string): string {
  const words = path
    .split('/')
    .filter(Boolean)
    .map((segment) => {
      const param = /^\{(.+)\}$/.exec(segment);
      return param ? `By${capitalised(camelCase(param[1]!))}` : capitalised(camelCase(segment));
    });
  return camelCase(method) + words.join('');
}

/** What names an operation: its method, path and operationId as the contract writes them. */
export interface NamedRoute {
  method: string;
  path: string;
  operationId?: string | undefined;
}

/**
 * The name each operation's handler, stub and types go by: its operationId where that is a
 * JavaScript identifier (and not a reserved word); otherwise made from it (`get-stations` →
 * `getStations`, `find book by id` → `findBookById`), or, without one, from its method and path
 * (`GET /stations/{id}` → `getStationsById`). A reserved word gets `Operation` after it; a name
 * already taken, whatever its case, gets `2`, `3`... in document order. The same contract always
 * gives the same names.
 */
export function operationNames(routes: readonly NamedRoute[]): string[] {
  // Names are compared without case: each is a file name too, and two that differ only in case
  // are one file on macOS and Windows (and TypeScript refuses them anywhere).
  const taken = new Set<string>();
  const asWritten = (operationId: string | undefined): operationId is string =>
    operationId !== undefined && IDENTIFIER.test(operationId) && !RESERVED.has(operationId);
  // Names as written come first, so that an operation whose operationId is a fine identifier never yields it to another.
  const kept = routes.map((route) => {
    if (!asWritten(route.operationId) || taken.has(route.operationId.toLowerCase())) return false;
    taken.add(route.operationId.toLowerCase());
    return true;
  });
  return routes.map((route, i) => {
    const { operationId } = route;
    if (kept[i]) return operationId!;
    let base = operationId && camelCase(operationId) ? camelCase(operationId) : nameFromRoute(route.method, route.path);
    if (RESERVED.has(base)) base = `${base}Operation`;
    let name = base;
    for (let n = 2; taken.has(name.toLowerCase()); n++) name = `${base}${n}`;
    taken.add(name.toLowerCase());
    return name;
  });
}
