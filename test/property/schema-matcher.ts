import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import ajvFormats from 'ajv-formats';
import type { OpenApiDocument } from '../../src/contract/load-spec.js';

/** Why a value was refused: the keyword (`maxLength`, `required`, …) and the path of the value it is about. */
export interface Refusal {
  keyword: string;
  at: string[];
}

/** The largest float (IEEE 754 binary32), and its smallest normal, for OpenAPI's `float`. */
const FLOAT_MAX = (2 - 2 ** -23) * 2 ** 127;
const FLOAT_MIN = 2 ** -126;

/**
 * OpenAPI's numeric formats, which ajv-formats does not define, as the server's validator
 * (express-openapi-validator) checks them, and `int64` once more as JSON can carry it exactly
 * (safe integers): a value between the two counts as neither valid nor invalid.
 */
const isFloat = (n: number) => n === 0 || (Math.abs(n) >= FLOAT_MIN && Math.abs(n) <= FLOAT_MAX);
const OPENAPI_FORMATS = [
  { int64: (n: number) => Number.isInteger(n) && Math.abs(n) <= 2 ** 63 },
  { int64: (n: number) => Number.isSafeInteger(n) },
].map((mode) => ({
  int32: (n: number) => Number.isInteger(n) && n >= -(2 ** 31) && n < 2 ** 31,
  float: isFloat,
  double: () => true,
  ...mode,
}));

/**
 * Whether values satisfy schemas of a contract: the oracle of the property tests. Ajv (JSON
 * Schema 2020-12), once with each of ajv-formats' modes (`fast`, the server's, and `full`), so
 * that a value counts as accepted only when both accept it and as refused only when both refuse
 * it; what the two disagree on is left out of both.
 */
export class SchemaMatcher {
  private readonly modes: Ajv2020[];
  private readonly compiled = new Map<string, ValidateFunction[]>();

  constructor(doc: OpenApiDocument) {
    this.modes = (['fast', 'full'] as const).map((mode, i) => {
      const ajv = new Ajv2020({ strict: false, allErrors: true });
      ajvFormats.default(ajv, { mode });
      for (const [name, validate] of Object.entries(OPENAPI_FORMATS[i]!)) ajv.addFormat(name, { type: 'number', validate });
      for (const name of ['password', 'binary']) ajv.addFormat(name, true);
      ajv.addSchema({ $id: 'openapi.yaml', components: doc.components ?? {} });
      return ajv;
    });
  }

  /** Whether every mode accepts the value. */
  accepts(schema: unknown, value: unknown): boolean {
    const json = plain(value);
    return this.validators(schema).every((validate) => validate(json));
  }

  /** Why every mode refuses the value (the errors of both), or null when one accepts it. */
  refusals(schema: unknown, value: unknown): Refusal[] | null {
    const json = plain(value);
    const errors: ErrorObject[] = [];
    for (const validate of this.validators(schema)) {
      if (validate(json)) return null;
      errors.push(...(validate.errors ?? []));
    }
    return errors.map((e) => ({ keyword: e.keyword, at: location(e) }));
  }

  private validators(schema: unknown): ValidateFunction[] {
    const key = JSON.stringify(schema ?? true);
    let validators = this.compiled.get(key);
    if (!validators) {
      // Local $refs name the contract, registered above as openapi.yaml.
      const local = JSON.parse(key.replaceAll('"#/components/', '"openapi.yaml#/components/')) as object | boolean;
      validators = this.modes.map((ajv) => ajv.compile(local));
      this.compiled.set(key, validators);
    }
    return validators;
  }
}

/** The path of the value an error is about: its instancePath, and the property it names when it names one (a missing or an extra one). */
function location(error: ErrorObject): string[] {
  const at =
    error.instancePath === ''
      ? []
      : error.instancePath
          .slice(1)
          .split('/')
          .map((s) => s.replaceAll('~1', '/').replaceAll('~0', '~'));
  const params = error.params as Record<string, unknown>;
  const named = params.missingProperty ?? params.additionalProperty ?? params.unevaluatedProperty ?? params.propertyName;
  return typeof named === 'string' ? [...at, named] : at;
}

/** The value as JSON carries it: a bigint (an integer past 2^53, written exactly) becomes the nearest number. */
function plain(value: unknown): unknown {
  if (typeof value === 'bigint') return Number(value);
  if (Array.isArray(value)) return value.map(plain);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, plain(v)]));
  return value;
}
