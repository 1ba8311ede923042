import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { GenerateInput, GeneratePlugin } from 'contract-kit/codegen';

/** The client package: its name (the repository's package.json pins it) and its folder. */
const CLIENT_PACKAGE = '@animal-store/client';
const CLIENT_DIR = 'packages/client';

const readIfThere = (path: string) => (existsSync(path) ? readFileSync(path, 'utf8') : undefined);

/** The client's generated folder: its own copy of the contract's types and stream reader (it is published alone), its version and servers. */
function clientFiles({ contract, files, out, spec }: GenerateInput): Record<string, string> {
  const types = files.get(join(out, 'openapi.ts'));
  if (types === undefined) throw new Error(`the kit wrote no ${join(out, 'openapi.ts')} to copy`);
  const servers = Object.fromEntries((contract.servers ?? []).map((s) => [(s.description ?? s.url).toLowerCase(), s.url]));
  const contractTs =
    `// Written by \`contract-kit generate\` (scripts/codegen/client-package.ts) from ${spec}. Do not edit it by hand: run it again.\n` +
    '\n/** Version of the contract these files were generated from (`info.version`); the package has the same. */\n' +
    `export const apiVersion = ${JSON.stringify(contract.info.version)};\n\n` +
    '/** The deployments of the contract (`servers`), by lower-cased description. */\n' +
    `export const servers = ${JSON.stringify(servers, null, 2)} as const;\n`;
  // The kit's reader of streamed answers (server-sent events), which followPets reads the feed with.
  const streams = files.get(join(out, 'streams.ts'));
  return {
    [`${CLIENT_DIR}/src/generated/openapi.ts`]: types,
    [`${CLIENT_DIR}/src/generated/contract.ts`]: contractTs,
    ...(streams === undefined ? {} : { [`${CLIENT_DIR}/src/generated/streams.ts`]: streams }),
  };
}

/**
 * The records of the client's version that are behind the contract's info.version, brought up to
 * it: the client's package.json, the repository's pin on it, and npm's lock file (which records
 * both; npm writes it as JSON.stringify with two spaces, as here). Up-to-date records are left out.
 */
function versionFiles({ cwd, contract }: GenerateInput): Record<string, string> {
  const version = contract.info.version;
  const changed: Record<string, string> = {};
  const client = readIfThere(join(cwd, CLIENT_DIR, 'package.json'));
  if (client !== undefined && (JSON.parse(client) as { version?: string }).version !== version)
    changed[`${CLIENT_DIR}/package.json`] = client.replace(/"version": "[^"\n]*"/, `"version": ${JSON.stringify(version)}`);
  const root = readIfThere(join(cwd, 'package.json'));
  const pinned =
    root === undefined ? undefined : (JSON.parse(root) as { dependencies?: Record<string, string> }).dependencies?.[CLIENT_PACKAGE];
  if (root !== undefined && pinned !== undefined && pinned !== version) {
    const pin = (to: string) => `"${CLIENT_PACKAGE}": ${JSON.stringify(to)}`;
    changed['package.json'] = root.replace(pin(pinned), pin(version));
  }
  const lockText = readIfThere(join(cwd, 'package-lock.json'));
  if (lockText !== undefined) {
    const lock = JSON.parse(lockText) as { packages?: Record<string, { version?: string; dependencies?: Record<string, string> }> };
    const workspace = lock.packages?.[CLIENT_DIR];
    const dependencies = lock.packages?.['']?.dependencies;
    let stale = false;
    if (workspace?.version !== undefined && workspace.version !== version) [workspace.version, stale] = [version, true];
    if (dependencies?.[CLIENT_PACKAGE] !== undefined && dependencies[CLIENT_PACKAGE] !== version)
      [dependencies[CLIENT_PACKAGE], stale] = [version, true];
    if (stale) changed['package-lock.json'] = `${JSON.stringify(lock, null, 2)}\n`;
  }
  return changed;
}

/**
 * The client package (packages/client) as a plugin of `contract-kit generate`
 * (contract-kit.config.ts): its generated folder, and its version kept at the contract's.
 */
export const clientPackage: GeneratePlugin = {
  name: 'client-package',
  run: (input) => ({ files: { ...clientFiles(input), ...versionFiles(input) } }),
};
