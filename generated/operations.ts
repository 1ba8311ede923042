// Written by `contract-kit generate` from openapi.yaml. Do not edit it by hand: run it again.

import type { StreamsMark } from 'contract-kit';
import type { paths } from './openapi.js';

/** Each operation of the contract, by the name its handler goes by. */
export interface Operations {
  /** List animals: GET /pets */
  listPets: paths["/pets"]["get"];
  /** Add an animal: POST /pets */
  createPet: paths["/pets"]["post"];
  /** Follow the animals added: GET /pets/feed */
  followPets: paths["/pets/feed"]["get"] & StreamsMark;
  /** Fetch an animal: GET /pets/{petId} */
  getPet: paths["/pets/{petId}"]["get"];
}
