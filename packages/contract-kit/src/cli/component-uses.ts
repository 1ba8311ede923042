import { escapePointer, resolveRef, type OpenApiDocument } from '../contract/document.js';
import { pathItemOperations } from '../contract/methods.js';

/** One place where an operation uses a component, by `$ref` (directly or through other components). */
export interface ComponentUse {
  /** The component's pointer, such as `#/components/schemas/Book`. */
  component: string;
  /** The operation, such as `GET /books/{bookId}`. */
  where: string;
  /** Where the `$ref` stands, as if the components were written in place, as Redocly's paths are. */
  pointer: string;
}

const escape = escapePointer;

/** What a `$ref` points at, or undefined for one that points at nothing. */
function resolve(doc: OpenApiDocument, ref: string): unknown {
  try {
    return resolveRef(doc, { $ref: ref });
  } catch {
    return undefined;
  }
}

/**
 * Every place where an operation of `doc` uses a component. Redocly's diff walks a component
 * once and reports its changes at the first place it met it, so the other operations that use
 * it are found here.
 */
export function componentUses(doc: OpenApiDocument): ComponentUse[] {
  const uses: ComponentUse[] = [];
  const walk = (node: unknown, pointer: string, where: string, within: ReadonlySet<string>): void => {
    if (!node || typeof node !== 'object') return;
    const ref = (node as { $ref?: unknown }).$ref;
    if (typeof ref === 'string' && ref.startsWith('#/components/')) {
      uses.push({ component: ref, where, pointer });
      // A component that holds itself (a tree of schemas) is followed once per place.
      if (!within.has(ref)) walk(resolve(doc, ref), pointer, where, new Set([...within, ref]));
      return;
    }
    for (const [key, value] of Object.entries(node)) walk(value, `${pointer}/${escape(key)}`, where, within);
  };
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    const at = `#/paths/${escape(path)}`;
    for (const { method, key, op } of pathItemOperations(doc, item)) {
      const where = `${method.toUpperCase()} ${path}`;
      walk(item.parameters, `${at}/parameters`, where, new Set());
      walk(op, `${at}/${key}`, where, new Set());
    }
  }
  return uses;
}

/**
 * The operations other than `where` that use the component a change Redocly reported in `where`,
 * at `pointer`, is in: the innermost one, where Redocly met the change. A reference added or
 * removed is the place's own change, which Redocly reports at each place.
 */
export function operationsAlsoUsing(uses: ComponentUse[], where: string, pointer: string, kind: string): string[] {
  const inside = (use: ComponentUse) => pointer.startsWith(`${use.pointer}/`) || (pointer === use.pointer && kind === 'modified');
  const met = uses.filter((use) => use.where === where && inside(use)).sort((a, b) => b.pointer.length - a.pointer.length)[0];
  if (!met) return [];
  return [...new Set(uses.filter((use) => use.component === met.component && use.where !== where).map((use) => use.where))];
}
