import { relative, resolve } from 'node:path';
import type { OpenApiDocument } from '../contract/document.js';
import type { Operation } from '../contract/operations.js';

/** What `contract-kit generate` gives each plugin: the contract as it read it, and where it writes. */
export interface GenerateInput {
  /** The contract, whole (what other files it refers to is read in). */
  contract: OpenApiDocument;
  /** Its operations, named as the server and the handler map name them. */
  operations: readonly Operation[];
  /** The contract as `--spec` names it (openapi.yaml), for messages and headers. */
  spec: string;
  /** The contract's file, absolute. */
  specPath: string;
  /** The project's folder: where generate runs, and what a plugin's relative paths are relative to. */
  cwd: string;
  /** The generated folder (`--out`), absolute. */
  out: string;
  /** The handlers folder (`--handlers`), absolute. */
  handlers: string;
  /** The kit's own files (openapi.ts, operations.ts, handlers.ts, client.ts), by absolute path. */
  files: ReadonlyMap<string, string>;
  /** True under `--check`: nothing will be written, whatever the plugin returns. */
  check: boolean;
}

/** What a plugin returns: files to write, and problems, any of which stops generate writing anything. */
export interface GenerateOutput {
  /** Text by path (relative to `cwd`, or absolute); written when changed, named by `--check` when stale. */
  files?: Readonly<Record<string, string>>;
  /** Why the contract cannot be generated from, each a sentence: generate writes nothing and exits 1. */
  problems?: readonly string[];
}

/** A generate plugin: `contract-kit.config.*`'s `generate.plugins` lists them, run in order after the kit's own files. */
export interface GeneratePlugin {
  /** Named with each of its files and problems. */
  name: string;
  run(input: GenerateInput): GenerateOutput | Promise<GenerateOutput>;
}

/** The `generate` section of the project's configuration. */
export interface GenerateConfig {
  plugins?: readonly GeneratePlugin[];
}

/** What the plugins asked for: files by absolute path (with the plugin that wrote each), and problems, each naming its plugin. */
export interface PluginResults {
  files: Map<string, { text: string; plugin: string }>;
  problems: string[];
}

/** Whether `value` is a plugin, or why not (for the configuration's error message). */
export function pluginDefect(value: unknown): string | undefined {
  if (!value || typeof value !== 'object') return 'is not an object { name, run }';
  const { name, run } = value as Partial<GeneratePlugin>;
  if (typeof name !== 'string' || name === '') return 'has no name (a non-empty string)';
  if (typeof run !== 'function') return `(${name}) has no run(input) function`;
  return undefined;
}

/**
 * Runs each plugin in turn. A plugin that throws, returns what is not text, or writes where the
 * kit or another plugin writes has that as its problem.
 */
export async function runPlugins(plugins: readonly GeneratePlugin[], input: GenerateInput): Promise<PluginResults> {
  const results: PluginResults = { files: new Map(), problems: [] };
  for (const plugin of plugins) {
    const problem = (text: string) => results.problems.push(`plugin ${plugin.name}: ${text}`);
    let output: GenerateOutput;
    try {
      output = (await plugin.run(input)) ?? {};
    } catch (error) {
      problem(`failed: ${error instanceof Error ? error.message : String(error)}`);
      continue;
    }
    for (const text of output.problems ?? []) problem(text);
    for (const [path, text] of Object.entries(output.files ?? {})) {
      const absolute = resolve(input.cwd, path);
      const shown = relative(input.cwd, absolute);
      if (typeof text !== 'string') problem(`${shown}: its text is a ${typeof text}, not a string`);
      else if (input.files.has(absolute)) problem(`${shown} is a file the kit writes`);
      else if (results.files.has(absolute)) problem(`${shown} is written by plugin ${results.files.get(absolute)!.plugin} too`);
      else results.files.set(absolute, { text, plugin: plugin.name });
    }
  }
  return results;
}
