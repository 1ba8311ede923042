import type { RequestHandler } from 'express';
import type { OpenApiDocument } from '../contract/document.js';
import type { Operation } from '../contract/operations.js';
import { leaveOutDefaultsInAlternatives, leaveOutRefusedDefaults } from './defaults.js';
import { operationValidator } from './validation.js';
import { pathParameterNames, validatorDocument, validatorKey, validatorPath } from './validator-document.js';

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
 * Paths of a large contract one validator checks. Each validator compiles the whole OpenAPI
 * schema when it is made, whatever its options say (express-openapi-validator 5.6), and each of
 * its checks walks the validator's whole document; it looks a request up among its paths one by
 * one. On 650 operations (npm run bench -- --only large-contract), every validator was compiled
 * in 10.1 s with 4 paths to a validator, 10.5-11.3 s with 8, 12.2 s with 16, 18.4 s with 32 and
 * 14.6-15.2 s with 1, in 419 MiB against 517-521 MiB with 1.
 */
const PATHS_PER_VALIDATOR = 4;

/**
 * Paths of a contract whose every path has a validator of its own: a request to the third path
 * of a validator of four cost 4.5 % of the kit's throughput on the bench's 4-path contract
 * (7,783 and 8,017 req/s against 8,164 and 8,441, alternated), while a contract this small is
 * ready in about a second either way.
 */
const SMALL_CONTRACT_PATHS = 64;

/**
 * The express-openapi-validator instances of a contract, each made on its first need: one per
 * path, or per group of PATHS_PER_VALIDATOR paths in a contract of more than SMALL_CONTRACT_PATHS (another where a form's strings are coerced, and where a
 * body too large for every wrong value to be reported comes: see allErrorsUpToBytes), shared by
 * the operations of those paths, each path under a slot of its own (see validatorUrl). An
 * operation whose validator fails in the shared one gets one of its own, so one broken schema
 * fails its own operation only.
 */
export class OperationValidators {
  readonly operations: readonly Operation[];
  /** The operations of each group of paths, and the group and slot of each operation's path. */
  private readonly groups: Operation[][] = [];
  private readonly place = new Map<string, { group: number; slot: number }>();
  private readonly shared = new Map<number, ByOptions>();
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
    const perValidator = new Set(this.operations.map(validatorKey)).size > SMALL_CONTRACT_PATHS ? PATHS_PER_VALIDATOR : 1;
    for (const op of this.operations) {
      let place = this.place.get(validatorKey(op));
      if (!place) {
        const group = Math.floor(this.place.size / perValidator);
        this.place.set(validatorKey(op), (place = { group, slot: this.place.size % perValidator }));
        if (group === this.groups.length) this.groups.push([]);
      }
      this.groups[place.group]!.push(op);
    }
  }

  /** Where `op`'s path is in its validator's document: the slot validatorUrl takes. */
  slot(op: Operation): number {
    return this.place.get(validatorKey(op))!.slot;
  }

  /**
   * The middleware that checks `op`'s requests and answers, made now if it was not.
   * @throws ContractError when the operation's document cannot be made (an unresolvable `$ref`)
   */
  handlers(op: Operation, coerce: boolean, allErrors = true): RequestHandler[] {
    const key = `${coerce}/${allErrors}`;
    if (!this.alone.has(op)) {
      const { group } = this.place.get(validatorKey(op))!;
      let made = this.shared.get(group);
      if (!made) this.shared.set(group, (made = new Map<string, RequestHandler[]>()));
      const existing = made.get(key);
      if (existing) return existing;
      try {
        const document = this.document(this.groups[group]!);
        // A path that brings the contract's paths along is not to fail the others of its group with them.
        if (document === undefined) {
          this.split(group);
          return this.handlers(op, coerce, allErrors);
        }
        const handlers = operationValidator(document, { coerce, allErrors }, this.options);
        made.set(key, handlers);
        return handlers;
      } catch {
        // One of the group's operations cannot be written for the validator: each gets its own document.
        for (const other of this.groups[group]!) this.alone.add(other);
      }
    }
    let made = this.own.get(op);
    if (!made) this.own.set(op, (made = new Map<string, RequestHandler[]>()));
    let handlers = made.get(key);
    if (!handlers) made.set(key, (handlers = operationValidator(this.document([op], true)!, { coerce, allErrors }, this.options)));
    return handlers;
  }

  /** Gives each path of `group` but its first a group of its own. */
  private split(group: number): void {
    const keys = [...new Set(this.groups[group]!.map(validatorKey))];
    for (const key of keys.slice(1)) {
      this.place.set(key, { group: this.groups.length, slot: 0 });
      this.groups.push(this.groups[group]!.filter((op) => validatorKey(op) === key));
    }
    this.groups[group] = this.groups[group]!.filter((op) => validatorKey(op) === keys[0]);
  }

  /**
   * The validator's document for `ops` (see validatorDocument), without the defaults their schemas
   * refuse: each place that held one is named once, by its operations or as a component.
   * Undefined where the document needs the contract's paths and `ops` are of more than one path,
   * unless `alone`: the caller splits their group.
   */
  private document(ops: readonly Operation[], alone = false): OpenApiDocument | undefined {
    const { document, contractPaths } = validatorDocument(this.doc, ops, (op) => this.slot(op));
    if (contractPaths && !alone && new Set(ops.map(validatorKey)).size > 1) return undefined;
    const names = new Map<string, string>();
    for (const op of ops) {
      const where = validatorPath(this.slot(op), pathParameterNames(op).length);
      names.set(where, names.has(where) ? `${names.get(where)}, ${op.name}` : op.name);
    }
    for (const [where, values] of leaveOutRefusedDefaults(document, this.options.fits)) {
      // The contract's own paths, along for a $ref into them, are named by their own validators.
      const named = names.get(where) ?? (where.startsWith('#/components/') ? where : undefined);
      if (named === undefined || this.warned.has(named)) continue;
      this.warned.add(named);
      this.options.onWarning(
        `${named}: ${values.length} default(s) their own schemas refuse, which the validator leaves out of requests: ${values.slice(0, 3).join(', ')}`,
      );
    }
    // After: the defaults checked there are read against the contract, which has none of its copies.
    leaveOutDefaultsInAlternatives(document);
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
