// Written by `contract-kit generate` from openapi.yaml. Do not edit it by hand: run it again.

import createClient, { type ClientOptions } from 'openapi-fetch';
import type { paths } from './openapi.js';

/** A typed client of the contract (openapi-fetch): each call returns { data, error, response }. */
export const createApiClient = (baseUrl: string, options: Omit<ClientOptions, 'baseUrl'> = {}) => createClient<paths>({ ...options, baseUrl });
