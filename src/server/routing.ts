import { Router } from 'express';
import type { OperationInfo } from '../spec/operations.js';

/** A Router that matches paths exactly as the contract writes them (case-sensitive). */
export function operationRouter(): Router {
  return Router({ caseSensitive: true });
}

/** Matches request paths against the contract's paths, without Express's routing. */
export class PathMatcher {
  private readonly routes: { pattern: RegExp; op: OperationInfo }[];

  constructor(operations: OperationInfo[], basePath: string) {
    this.routes = operations.map((op) => ({
      op,
      pattern: new RegExp(`^${escape(basePath)}${op.path.split(/\{[^}]+\}/).map(escape).join('[^/]+')}/?$`),
    }));
  }

  /** The operations whose path matches `path` (any method). */
  operationsAt(path: string): OperationInfo[] {
    return this.routes.filter((r) => r.pattern.test(path)).map((r) => r.op);
  }

  /** The operation for this method and path, if the contract has one. */
  find(method: string, path: string): OperationInfo | undefined {
    const lower = method.toLowerCase();
    return this.operationsAt(path).find((op) => op.method === lower);
  }

  /** The methods the contract allows on `path`, for a 405's Allow header. */
  allowedMethods(path: string): string[] {
    return this.operationsAt(path).map((op) => op.method.toUpperCase());
  }
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
