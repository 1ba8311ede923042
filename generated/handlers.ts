// Written by `contract-kit generate` from openapi.yaml. Do not edit it by hand: run it again.

import type { Handlers } from 'contract-kit';
import type { Operations } from './operations.js';
import type { Context } from '../src/service/http/context.js';
import { listPets } from '../src/service/http/handlers/listPets.js';
import { createPet } from '../src/service/http/handlers/createPet.js';
import { followPets } from '../src/service/http/handlers/followPets.js';
import { getPet } from '../src/service/http/handlers/getPet.js';

/** The handler of every operation, by name; each lives in its own file. */
export const handlers = { listPets, createPet, followPets, getPet } satisfies Handlers<Operations, Context>;
