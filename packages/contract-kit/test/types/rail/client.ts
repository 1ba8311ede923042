// Written by renderTypes from test/fixtures/rail-3.1.yaml (test/types/fixture-types.ts). Do not edit it by hand.

import createClient, { type ClientOptions } from 'openapi-fetch';
import type { paths } from './openapi.js';

/** A typed client of the contract (openapi-fetch): each call returns { data, error, response }. */
export const createApiClient = (baseUrl: string, options: Omit<ClientOptions, 'baseUrl'> = {}) => createClient<paths>({ ...options, baseUrl });
