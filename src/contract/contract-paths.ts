import type { OperationInfo } from './operations.js';

/** What the contract has at one request path. */
export interface PathMatch {
  /** The operations at this path, whatever their method. */
  operations: OperationInfo[];
  /** The operation for each method (upper case, as Node gives it). */
  byMethod: ReadonlyMap<string, OperationInfo>;
  /** The path parameters as the request wrote them, not yet percent-decoded. */
  rawParams: Record<string, string>;
}

interface ContractPath {
  pattern: RegExp;
  names: string[];
  operations: OperationInfo[];
  byMethod: Map<string, OperationInfo>;
}

/** The expression matching a contract path (`/pets/{petId}`) under the base path, one group a parameter. */
export function pathPattern(basePath: string, path: string): RegExp {
  return new RegExp(
    `^${escape(basePath)}${path
      .split(/\{[^{}]+\}/)
      .map(escape)
      .join('([^/]+)')}$`,
  );
}

/**
 * Matches request paths against the contract's paths, for the mock (the service has Express
 * route them): one regular expression per path, compiled once. Case-sensitive and strict: `/pets/` is not `/pets`, as
 * the service routes them.
 */
export class PathMatcher {
  private readonly paths: ContractPath[] = [];

  constructor(operations: OperationInfo[], basePath: string) {
    for (const op of operations) {
      let path = this.paths.find((p) => p.operations[0]!.path === op.path);
      if (!path) {
        const names = [...op.path.matchAll(/\{([^{}]+)\}/g)].map((m) => m[1]!);
        path = { pattern: pathPattern(basePath, op.path), names, operations: [], byMethod: new Map() };
        this.paths.push(path);
      }
      path.operations.push(op);
      path.byMethod.set(op.method.toUpperCase(), op);
    }
    // HEAD wherever GET works (RFC 9110, section 9.3.2): the GET operation answers it, headers and
    // all, and Node sends no body.
    for (const path of this.paths) {
      const get = path.byMethod.get('GET');
      if (get && !path.byMethod.has('HEAD')) path.byMethod.set('HEAD', get);
    }
  }

  /** What the contract has at `path`, or undefined when it has nothing there. */
  match(path: string): PathMatch | undefined {
    for (const candidate of this.paths) {
      const found = candidate.pattern.exec(path);
      if (!found) continue;
      const rawParams: Record<string, string> = {};
      for (let i = 0; i < candidate.names.length; i++) rawParams[candidate.names[i]!] = found[i + 1]!;
      return { operations: candidate.operations, byMethod: candidate.byMethod, rawParams };
    }
    return undefined;
  }
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
