import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { GenerateConfig } from '../codegen/plugins.js';
import type { MockConfig } from '../mock/mock-config.js';
import { CommandError } from './command-line.js';

/**
 * What a project adds to the kit's commands, in `contract-kit.config.js` (or `.mjs`, or `.ts` where
 * the runtime imports TypeScript) beside the contract: its default export, one section per command.
 */
export interface KitConfig {
  /** `contract-kit generate`'s plugins (see GeneratePlugin). */
  generate?: GenerateConfig;
  mock?: MockConfig;
  docs?: { spec?: string; output?: string; template?: string; compress?: boolean };
  checkBreaking?: { spec?: string; released?: string };
}

/** The names the kit looks for in the project's folder, first found wins. */
const CONFIG_FILES = ['contract-kit.config.js', 'contract-kit.config.mjs', 'contract-kit.config.ts'] as const;

/**
 * The project's configuration: the file `--config` names, else the first of CONFIG_FILES in `cwd`,
 * else none ({}).
 * @throws CommandError naming the file when it is missing, does not load, or exports no object
 */
export async function loadConfig(cwd: string, file?: string): Promise<KitConfig> {
  const path = file !== undefined ? resolve(cwd, file) : CONFIG_FILES.map((name) => resolve(cwd, name)).find((p) => existsSync(p));
  if (path === undefined) return {};
  if (!existsSync(path)) throw new CommandError(`the configuration ${file} does not exist`);
  let loaded: { default?: unknown };
  try {
    loaded = (await import(pathToFileURL(path).href)) as { default?: unknown };
  } catch (cause) {
    throw new CommandError(`the configuration ${path} does not load: ${(cause as Error).message}`, { cause });
  }
  const config = loaded.default;
  if (!config || typeof config !== 'object' || Array.isArray(config))
    throw new CommandError(`the configuration ${path} has no default export of an object (export default { generate: { … } })`);
  return config;
}
