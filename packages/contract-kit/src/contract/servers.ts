import { ContractError, type OpenApiDocument, type ServerObject } from './document.js';

/** A server URL with each `{variable}` replaced by its default. */
export function serverUrl(server: ServerObject, where: string): string {
  return server.url.replace(/\{([^{}]+)\}/g, (_, name: string) => {
    const value = server.variables?.[name]?.default;
    if (typeof value !== 'string') throw new ContractError(where, `server variable ${name} has no default`);
    return value;
  });
}

/** The path of a server URL, without a trailing slash: `https://api.example.com/v1/` → `/v1`; `/` → ``. */
export function serverPath(url: string): string {
  const { pathname } = new URL(url, 'http://relative.invalid');
  return pathname.replace(/\/+$/, '');
}

/**
 * The base paths the contract's paths are served under: the path of each server (variables at
 * their defaults), each once, in the contract's order; `['']` without servers (OpenAPI's
 * default server is `/`). `only`, the description or URL of one server, keeps that one.
 * @throws ContractError when `only` names no server, or a server variable has no default
 */
export function basePathsOf(doc: OpenApiDocument, only?: string): string[] {
  const servers = doc.servers?.length ? doc.servers : [{ url: '/' }];
  const chosen = only === undefined ? servers : servers.filter((s) => s.description === only || s.url === only);
  if (chosen.length === 0) {
    throw new ContractError(
      '#/servers',
      `no server is named ${JSON.stringify(only)} (${servers.map((s) => s.description ?? s.url).join(', ')})`,
    );
  }
  return [...new Set(chosen.map((server) => serverPath(serverUrl(server, `#/servers/${servers.indexOf(server)}`))))];
}
