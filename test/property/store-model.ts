import { isDeepStrictEqual } from 'node:util';
import type { ObservedResponse } from '../contract/conformance.js';
import { canonical } from '../../src/service/http/middleware/idempotency.js';
import { decodeCursor } from '../../src/service/http/pagination.js';
import type { OpenApiDocument } from '../../src/contract/load-spec.js';
import { createPetBodies } from '../../scripts/codegen/pet-storage-check.js';
import type { GeneratedRequest } from './arbitraries-from-spec.js';
import { asStored } from '../support/stored-animal.js';

/** An animal as sent and stored: its columns and whatever else the contract gives NewPet and Pet. */
interface PetFields {
  name: string;
  categoryId: number;
  status: string;
  [field: string]: unknown;
}

type Pet = PetFields & { id: number };

const parse = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

/**
 * What the store must hold after the valid requests of a run, and so what each valid request
 * must get: a created animal is the one sent, every field of it, with the defaults of NewPet
 * for the fields not sent (status `available`) and a new id; an
 * Idempotency-Key seen before replays its first answer with the same body and is refused (422)
 * with another; GET /pets/{id} finds exactly the animals created; GET /pets lists them by id,
 * filtered and paged. Returns one sentence per difference.
 */
export class StoreModel {
  readonly pets = new Map<number, Pet>();
  /** NewPet's defaults, from the contract: what a field not sent is stored as. */
  private readonly defaults: Record<string, unknown>;
  private readonly idempotency = new Map<string, { fingerprint: string; status: number; text: string }>();

  constructor(doc: OpenApiDocument) {
    const sent = createPetBodies(doc)?.sent;
    this.defaults = Object.fromEntries(
      Object.entries(sent?.properties ?? {}).flatMap(([field, schema]) => (schema.default === undefined ? [] : [[field, schema.default]])),
    );
  }

  check(request: GeneratedRequest, observed: ObservedResponse): string[] {
    if (request.mutation) return [];
    switch (request.operationId) {
      case 'createPet':
        return this.createPet(request, observed);
      case 'getPet':
        return this.getPet(request, observed);
      case 'listPets':
        return this.listPets(request, observed);
      default:
        return [];
    }
  }

  private createPet(request: GeneratedRequest, observed: ObservedResponse): string[] {
    const sent = request.typed!.body as PetFields;
    const key = request.headers['Idempotency-Key'];
    const fingerprint = canonical(sent);
    const earlier = key === undefined ? undefined : this.idempotency.get(key);
    if (earlier && earlier.fingerprint !== fingerprint) {
      return observed.status === 422
        ? []
        : [`Idempotency-Key ${JSON.stringify(key)} was used with another body: expected 422, got ${observed.status}`];
    }
    if (earlier) {
      const violations: string[] = [];
      if (observed.status !== earlier.status || !isDeepStrictEqual(parse(observed.text), parse(earlier.text))) {
        violations.push(
          `a retry with Idempotency-Key ${JSON.stringify(key)} must replay ${earlier.status} ${earlier.text}, got ${observed.status} ${observed.text}`,
        );
      }
      if (observed.headers.get('Idempotent-Replayed') !== 'true') violations.push('a replay must carry Idempotent-Replayed: true');
      return violations;
    }
    if (observed.status !== 201) return [`expected 201, got ${observed.status} ${observed.text.slice(0, 200)}`];
    const { id, ...pet } = parse(observed.text) as Pet;
    // Every field sent comes back; the contract keeps names in Unicode Normalization Form C (PetName);
    // and a column the store fills (a field every animal must have) holds what it filled.
    const expected = asStored({ ...this.defaults, ...sent, name: sent.name.normalize('NFC') }, pet);
    const violations: string[] = [];
    if (!isDeepStrictEqual(pet, expected)) {
      violations.push(
        `the created animal ${observed.text} differs from what was sent (with NewPet's defaults, name in NFC, the columns the store fills) ${JSON.stringify(expected)}`,
      );
    }
    if (this.pets.has(id)) violations.push(`id ${id} was given twice`);
    this.pets.set(id, { id, ...expected });
    if (key !== undefined) this.idempotency.set(key, { fingerprint, status: observed.status, text: observed.text });
    return violations;
  }

  private getPet(request: GeneratedRequest, observed: ObservedResponse): string[] {
    const pet = this.pets.get(Number(request.pathParams.petId));
    if (!pet) return observed.status === 404 ? [] : [`no animal has id ${request.pathParams.petId}: expected 404, got ${observed.status}`];
    if (observed.status !== 200 || !isDeepStrictEqual(parse(observed.text), pet)) {
      return [`expected 200 ${JSON.stringify(pet)}, got ${observed.status} ${observed.text.slice(0, 200)}`];
    }
    return [];
  }

  private listPets(request: GeneratedRequest, observed: ObservedResponse): string[] {
    if (observed.status !== 200) return [`expected 200, got ${observed.status} ${observed.text.slice(0, 200)}`];
    const query = Object.fromEntries(request.query);
    const limit = query.limit === undefined ? 20 : Number(query.limit);
    const after = query.cursor === undefined ? 0 : decodeCursor(query.cursor);
    const expected = [...this.pets.values()]
      .filter((p) => p.id > after && (query.status === undefined || p.status === query.status))
      .sort((a, b) => a.id - b.id);
    const page = expected.slice(0, limit);
    const violations: string[] = [];
    if (!isDeepStrictEqual(parse(observed.text), page)) {
      violations.push(`expected the page ${JSON.stringify(page.map((p) => p.id))}, got ${observed.text.slice(0, 300)}`);
    }
    const link = observed.headers.get('Link');
    if (expected.length > limit !== (link !== null && /rel="next"/.test(link))) {
      violations.push(
        `${expected.length} animals match and the limit is ${limit}: Link rel="next" must be ${expected.length > limit ? 'present' : 'absent'}, got ${JSON.stringify(link)}`,
      );
    }
    return violations;
  }
}
