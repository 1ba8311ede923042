import type { RequestHandler } from 'express';
import type { Operation } from 'contract-kit';
import { resolveRef, type OpenApiDocument } from '../../contract/load-spec.js';
import { isInvisible } from '../../shared/visible-text.js';
import { InvalidRequestError } from './errors/invalid-request-error.js';

/** PetName's `maxLength` in openapi.yaml (test/hostile/names.test.ts holds the two together). */
export const PET_NAME_MAX_LENGTH = 100;

/**
 * A name as the store keeps it: in Unicode Normalization Form C, so that "Café" typed with a
 * precomposed é and with e + U+0301 is one name. A few characters grow under NFC (U+0958 becomes
 * two code points): a name whose NFC form exceeds the contract's length is refused, never stored
 * longer than every response promises. A name of invisible characters only is refused here too:
 * PetName's pattern names those up to U+FFFF, not those above it (tags, U+1D173…).
 * @see https://unicode.org/reports/tr15/
 */
function canonicalName(name: string): string {
  const nfc = name.normalize('NFC');
  let codePoints = 0;
  for (const _ of nfc) {
    if (++codePoints > PET_NAME_MAX_LENGTH) {
      throw new InvalidRequestError([
        { field: 'body.name', message: `must be at most ${PET_NAME_MAX_LENGTH} characters in Unicode Normalization Form C` },
      ]);
    }
  }
  if (isInvisible(nfc))
    throw new InvalidRequestError([{ field: 'body.name', message: 'must hold a character that is not white space or invisible' }]);
  return nfc;
}

/** Whether an operation's JSON body has a `name` that is a PetName. */
function takesPetName(doc: OpenApiDocument, op: Operation): boolean {
  const schema = resolveRef<{ properties?: Record<string, unknown> } | undefined>(doc, op.requestBody?.content['application/json']?.schema);
  const name = schema?.properties?.name as { $ref?: unknown } | undefined;
  return name?.$ref === '#/components/schemas/PetName';
}

/**
 * For an operation whose body has a PetName: the step, after validation and before the
 * Idempotency-Key is claimed, that puts the name in its canonical form or refuses it (see
 * canonicalName), so that a refused name records nothing and two spellings of one name are one
 * request. None for another operation.
 */
export function canonicalPetNames(doc: OpenApiDocument, op: Operation): RequestHandler | undefined {
  if (!takesPetName(doc, op)) return undefined;
  return (req, _res, next) => {
    const body = req.body as { name?: unknown };
    if (typeof body.name === 'string') body.name = canonicalName(body.name);
    next();
  };
}
