/**
 * contract-kit/codegen: what `contract-kit generate` writes from a contract (kept apart from the
 * server's entry, so that a server does not load openapi-typescript and TypeScript).
 */
export { renderClient } from './render-client.js';
export { renderTypes } from './render-types.js';
export type { GenerateConfig, GenerateInput, GenerateOutput, GeneratePlugin } from './plugins.js';
export type { KitConfig } from '../cli/config.js';
