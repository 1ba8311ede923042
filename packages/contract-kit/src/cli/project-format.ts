import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

interface Prettier {
  resolveConfig(file: string): Promise<Record<string, unknown> | null>;
  format(text: string, options: Record<string, unknown>): Promise<string>;
}

/**
 * `text`, to be written at `path`, as the project's own Prettier formats it (its configuration
 * for that file), so that a file the kit writes into the project's sources passes its format
 * check; as it is when the project has no Prettier.
 */
export async function formatForProject(cwd: string, path: string, text: string): Promise<string> {
  let entry: string;
  try {
    entry = createRequire(join(cwd, 'package.json')).resolve('prettier');
  } catch {
    return text;
  }
  const loaded = (await import(pathToFileURL(entry).href)) as Prettier & { default?: Prettier };
  const prettier = loaded.default ?? loaded;
  const options = (await prettier.resolveConfig(path)) ?? {};
  return prettier.format(text, { ...options, filepath: path });
}
