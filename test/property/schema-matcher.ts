import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { fastFormats, fullFormats } from 'ajv-formats/dist/formats.js';
import type { OpenApiDocument } from '../../src/contract/load-spec.js';

/**
 * Whether values satisfy schemas of a contract, for what the generator cannot build by
 * construction: exactly one `oneOf` branch, not the `not`, both of two patterns. Ajv (JSON Schema
 * 2020-12), once with each of ajv-formats' modes, so that a value counts as accepted only when
 * both accept it and as refused only when both refuse it.
 */
export class SchemaMatcher {
  private readonly modes: Ajv2020[];
  private readonly compiled = new Map<string, ValidateFunction[]>();

  constructor(doc: OpenApiDocument) {
    this.modes = [fastFormats, fullFormats].map((formats) => {
      const ajv = new Ajv2020({ strict: false, allErrors: false });
      for (const [name, format] of Object.entries(formats)) ajv.addFormat(name, format);
      ajv.addSchema({ $id: 'openapi.yaml', components: doc.components ?? {} });
      return ajv;
    });
  }

  /** Whether every mode accepts the value. */
  accepts(schema: unknown, value: unknown): boolean {
    const json = plain(value);
    return this.validators(schema).every((validate) => validate(json));
  }

  /** Whether every mode refuses the value. */
  refuses(schema: unknown, value: unknown): boolean {
    const json = plain(value);
    return this.validators(schema).every((validate) => !validate(json));
  }

  private validators(schema: unknown): ValidateFunction[] {
    const key = JSON.stringify(schema);
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

/** The value as JSON carries it: a bigint (an integer past 2^53, written exactly) becomes the nearest number. */
function plain(value: unknown): unknown {
  if (typeof value === 'bigint') return Number(value);
  if (Array.isArray(value)) return value.map(plain);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, plain(v)]));
  return value;
}
