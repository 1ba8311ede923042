import type { RequestHandler } from 'express';
import type { OpenApiDocument } from '../contract/document.js';
import type { Operation } from '../contract/operations.js';
import { leaveOutRefusedDefaults } from './defaults.js';
import { operationValidator } from './validation.js';
import { validatorDocument } from './validator-document.js';

/** What the validators of a contract share. */
export interface ValidatorOptions {
  validateResponses: boolean;
  /** Formats the contract names that the validator does not know: any value passes them. */
  formats: Record<string, () => boolean>;
  /** Whether a schema takes a value: a `default` it refuses is left out (see leaveOutRefusedDefaults). */
  fits: (schema: unknown, value: unknown) => boolean;
  /** Told of each default left out, once per validator document. */
  onWarning: (message: string) => void;
}

/** How far the compiling of a contract's validators is (see ContractServer.validators). */
export interface ValidatorProgress {
  /** The operations the validator checks: the contract's, but those that answer 501 for a defect. */
  operations: number;
  /** Of those, how many have their validator compiled (by the warm-up, or by a request). */
  compiled: number;
  /** Of those, how many have a validator that could not be compiled: each answers 500 (the reason goes to onError). */
  failed: number;
  /** Of the compiled ones, how many were compiled by a request that came before the warm-up got to them. */
  compiledOnRequest: number;
}

/** An operation's validators by whether each coerces a form's strings (see coercesBody) and reports every wrong value. */
type ByOptions = Map<string, RequestHandler[]>;

/**
 * The express-openapi-validator instances of a contract, each made on its first need: one per
 * path (another where a form's strings are coerced, and where a body too large for every wrong
 * value to be reported comes: see allErrorsUpToBytes), shared by the operations of that path, which
 * costs a request nothing (the validator is given one path) and compiles the OpenAPI schema it
 * loads the document with once per path rather than once per operation. An operation whose
 * validator fails in the shared one gets one of its own, so one broken schema fails its own
 * operation only.
 */
export class OperationValidators {
  readonly operations: readonly Operation[];
  private readonly byPath = new Map<string, Operation[]>();
  private readonly shared = new Map<string, ByOptions>();
  private readonly own = new Map<Operation, ByOptions>();
  private readonly alone = new Set<Operation>();
  private readonly state = new Map<Operation, 'compiled' | 'failed'>();
  private onRequest = 0;
  private readonly warned = new Set<string>();

  constructor(
    private readonly doc: OpenApiDocument,
    operations: readonly Operation[],
    private readonly options: ValidatorOptions,
  ) {
    this.operations = operations.filter((op) => op.defect === null);
    for (const op of this.operations) {
      const ops = this.byPath.get(op.path) ?? [];
      ops.push(op);
      this.byPath.set(op.path, ops);
    }
  }

  /**
   * The middleware that checks `op`'s requests and answers, made now if it was not.
   * @throws ContractError when the operation's document cannot be made (an unresolvable `$ref`)
   */
  handlers(op: Operation, coerce: boolean, allErrors = true): RequestHandler[] {
    const key = `${coerce}/${allErrors}`;
    if (!this.alone.has(op)) {
      let made = this.shared.get(op.path);
      if (!made) this.shared.set(op.path, (made = new Map<string, RequestHandler[]>()));
      const existing = made.get(key);
      if (existing) return existing;
      try {
        const handlers = operationValidator(this.document(this.byPath.get(op.path)!), { coerce, allErrors }, this.options);
        made.set(key, handlers);
        return handlers;
      } catch {
        // One of the path's operations cannot be written for the validator: each gets its own document.
        for (const other of this.byPath.get(op.path)!) this.alone.add(other);
      }
    }
    let made = this.own.get(op);
    if (!made) this.own.set(op, (made = new Map<string, RequestHandler[]>()));
    let handlers = made.get(key);
    if (!handlers) made.set(key, (handlers = operationValidator(this.document([op]), { coerce, allErrors }, this.options)));
    return handlers;
  }

  /** The validator's document for `ops` (see validatorDocument), without the defaults their schemas refuse. */
  private document(ops: readonly Operation[]): OpenApiDocument {
    const document = validatorDocument(this.doc, ops);
    const left = leaveOutRefusedDefaults(document, this.options.fits);
    if (left.length > 0 && !this.warned.has(ops[0]!.path)) {
      this.warned.add(ops[0]!.path);
      this.options.onWarning(
        `${ops.map((op) => op.name).join(', ')}: ${left.length} default(s) their own schemas refuse, which the validator leaves out of requests: ${left.slice(0, 3).join(', ')}`,
      );
    }
    return document;
  }

  /**
   * After a failure of `op`'s validator that is no refusal of the request (a schema it could not
   * compile): from then on `op` has a validator of its own. False when it had one already.
   */
  isolate(op: Operation): boolean {
    if (this.alone.has(op)) return false;
    this.alone.add(op);
    return true;
  }

  /** A request reached `op`'s validator: one that came before its validator was compiled compiles it. */
  asked(op: Operation): void {
    if (this.state.has(op)) return;
    this.state.set(op, 'compiled');
    this.onRequest++;
  }

  /** The warm-up compiled `op`'s validator, or found that it cannot be. */
  warmed(op: Operation, outcome: 'compiled' | 'failed'): void {
    this.state.set(op, outcome);
  }

  progress(): ValidatorProgress {
    const failed = [...this.state.values()].filter((s) => s === 'failed').length;
    return { operations: this.operations.length, compiled: this.state.size - failed, failed, compiledOnRequest: this.onRequest };
  }
}
