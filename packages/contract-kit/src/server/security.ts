import type { IncomingMessage } from 'node:http';
import { parse as parseCookies } from 'cookie';
import { ContractError, resolveRef, type OpenApiDocument, type SecurityRequirement } from '../contract/document.js';
import { HttpProblem, type KitProblemCode } from './problems.js';

/** A security scheme of the contract (`components.securitySchemes`), as the kit reads credentials for it. */
export type SecurityScheme =
  | { type: 'http'; scheme: string }
  | { type: 'apiKey'; in: 'header' | 'query' | 'cookie'; name: string }
  | { type: 'oauth2' | 'openIdConnect' }
  | { type: 'mutualTLS' };

/** What a request carries for one scheme, as its verifying function gets it. */
export type Credentials =
  /** http basic */
  | { username: string; password: string }
  /** http bearer, oauth2, openIdConnect: the bearer token */
  | { token: string }
  /** apiKey, from its header, query parameter or cookie */
  | { key: string }
  /** any other http scheme: the Authorization header's credentials after the scheme's name */
  | { credentials: string }
  /** mutualTLS: the client's certificate, as TLS gave it */
  | { certificate: unknown };

/** Who the caller is, as a verifying function found, and the OAuth 2 scopes its credentials grant. */
export interface Verified<Caller = unknown> {
  caller: Caller;
  scopes?: readonly string[];
}

/**
 * Checks one scheme's credentials: returns who the caller is (and the scopes granted), or
 * undefined when they are not valid. It may throw an HttpProblem (a 401 with its own message) or
 * any error (a store that is down): the request is refused with it.
 */
export type Verifier<Caller = unknown> = (
  credentials: Credentials,
  context: { request: IncomingMessage; scheme: string; requiredScopes: readonly string[] },
) => Verified<Caller> | undefined | Promise<Verified<Caller> | undefined>;

/** What authentication found for a request: its caller (undefined on a public operation), or why it is refused. */
export interface Authentication<Caller = unknown> {
  caller: Caller | undefined;
  /** The caller found by each scheme of the alternative that held. */
  callers: Record<string, Caller>;
  scopes: readonly string[];
  /** Set when no alternative held: the error the request is refused with. */
  failure: unknown;
}

/** The security schemes of the contract by name; one a requirement names but the contract lacks is a ContractError. */
export function securitySchemesOf(doc: OpenApiDocument): Map<string, SecurityScheme> {
  const schemes = new Map<string, SecurityScheme>();
  for (const [name, raw] of Object.entries(doc.components?.securitySchemes ?? {})) {
    const where = `#/components/securitySchemes/${name}`;
    const scheme = resolveRef<Record<string, unknown>>(doc, raw, where);
    switch (scheme.type) {
      case 'http':
        schemes.set(name, { type: 'http', scheme: typeof scheme.scheme === 'string' ? scheme.scheme.toLowerCase() : '' });
        break;
      case 'apiKey':
        if (!['header', 'query', 'cookie'].includes(scheme.in as string) || typeof scheme.name !== 'string') {
          throw new ContractError(where, 'an apiKey scheme needs in (header, query or cookie) and name');
        }
        schemes.set(name, { type: 'apiKey', in: scheme.in as 'header' | 'query' | 'cookie', name: scheme.name });
        break;
      case 'oauth2':
      case 'openIdConnect':
      case 'mutualTLS':
        schemes.set(name, { type: scheme.type });
        break;
      default:
        throw new ContractError(where, `has type ${JSON.stringify(scheme.type)}, which OpenAPI does not define`);
    }
  }
  return schemes;
}

/** Credentials a request carries for a scheme, or why it carries none (for the 401's message). */
type Found = { credentials: Credentials } | { missing: string };

/** The one Authorization header, or why there is none to read. */
function authorization(req: IncomingMessage): { value: string } | { missing: string } {
  let count = 0;
  for (let i = 0; i < req.rawHeaders.length; i += 2) if (req.rawHeaders[i]!.toLowerCase() === 'authorization') count++;
  if (count === 0) return { missing: 'no Authorization header' };
  // Node keeps one of several; which the client meant is anyone's guess.
  if (count > 1) return { missing: 'more than one Authorization header' };
  return { value: req.headers.authorization ?? '' };
}

/** `Bearer abc` → `abc` for scheme `bearer` (case-insensitive, RFC 9110 section 11.1), or why not. */
function afterScheme(req: IncomingMessage, scheme: string): { value: string } | { missing: string } {
  const header = authorization(req);
  if ('missing' in header) return header;
  const space = header.value.indexOf(' ');
  const rest = space < 0 ? '' : header.value.slice(space + 1).trim();
  if (space < 0 || header.value.slice(0, space).toLowerCase() !== scheme || rest === '') {
    return { missing: `Authorization is not "${scheme.charAt(0).toUpperCase()}${scheme.slice(1)} <credentials>"` };
  }
  return { value: rest };
}

/** The credentials a request carries for `scheme`, or why it carries none. */
function credentialsFor(req: IncomingMessage & { query?: unknown }, scheme: SecurityScheme): Found {
  switch (scheme.type) {
    case 'http': {
      const rest = afterScheme(req, scheme.scheme);
      if ('missing' in rest) return rest;
      if (scheme.scheme === 'bearer') return { credentials: { token: rest.value } };
      if (scheme.scheme !== 'basic') return { credentials: { credentials: rest.value } };
      const decoded = Buffer.from(rest.value, 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      if (colon < 0) return { missing: 'Authorization is not "Basic <user:password in base64>"' };
      return { credentials: { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) } };
    }
    case 'oauth2':
    case 'openIdConnect': {
      const token = afterScheme(req, 'bearer');
      return 'missing' in token ? token : { credentials: { token: token.value } };
    }
    case 'apiKey': {
      let key: unknown;
      if (scheme.in === 'header') key = req.headers[scheme.name.toLowerCase()];
      else if (scheme.in === 'query') key = (req.query as Record<string, unknown> | undefined)?.[scheme.name];
      else key = parseCookies(req.headers.cookie ?? '')[scheme.name];
      return typeof key === 'string' && key !== ''
        ? { credentials: { key } }
        : { missing: `no ${scheme.name} ${scheme.in === 'query' ? 'query parameter' : scheme.in}` };
    }
    case 'mutualTLS': {
      const socket = req.socket as { getPeerCertificate?: () => unknown };
      const certificate = socket.getPeerCertificate?.();
      return certificate && Object.keys(certificate).length > 0 ? { credentials: { certificate } } : { missing: 'no client certificate' };
    }
  }
}

/** The challenge of a 401 for one scheme (RFC 9110 section 11.6.1), or undefined for schemes without one (apiKey). */
function challenge(scheme: SecurityScheme, realm: string, scopes: readonly string[]): string | undefined {
  const quoted = `realm="${realm.replace(/["\\]/g, '\\$&')}"`;
  if (scheme.type === 'http') return `${scheme.scheme.charAt(0).toUpperCase()}${scheme.scheme.slice(1)} ${quoted}`;
  if (scheme.type === 'oauth2' || scheme.type === 'openIdConnect') {
    return scopes.length > 0 ? `Bearer ${quoted}, scope="${scopes.join(' ')}"` : `Bearer ${quoted}`;
  }
  return undefined;
}

/** How the kit authenticates an operation's requests: its alternatives, the schemes, the verifiers. */
export interface SecurityPlan {
  /** The alternatives in the order they are tried (see triedInOrder). */
  requirements: SecurityRequirement[];
  schemes: Map<string, SecurityScheme>;
  verifiers: Readonly<Record<string, Verifier | undefined>>;
  realm: string;
}

/**
 * An operation's security alternatives in the order authenticate tries them: as the contract
 * writes them, an empty one (`{}`: anyone) last, so that credentials that hold name the caller
 * of an operation open to anyone (`[{}, {key: []}]`).
 */
export const triedInOrder = (requirements: SecurityRequirement[]): SecurityRequirement[] => [
  ...requirements.filter((requirement) => Object.keys(requirement).length > 0),
  ...requirements.filter((requirement) => Object.keys(requirement).length === 0),
];

/**
 * Finds the caller of a request by the operation's security: the plan's alternatives in order
 * (any one suffices; an empty one, or none at all, makes the operation public), each scheme of one
 * alternative checked by its verifier (all must hold, each with the scopes the requirement
 * names). It never throws: what refuses the request is kept as `failure` (an HttpProblem 401
 * with the challenges of the schemes asked for, a 403 when credentials were valid but lacked a
 * scope, or what a verifier threw), for the authorize step to throw, so that steps in between
 * (a rate limit) see who called.
 */
export async function authenticate(plan: SecurityPlan, req: IncomingMessage): Promise<Authentication> {
  if (plan.requirements.length === 0) return { caller: undefined, callers: {}, scopes: [], failure: undefined };
  let thrown: unknown;
  let lackingScope: string | undefined;
  const reasons = new Set<string>();
  for (const requirement of plan.requirements) {
    const callers: Record<string, unknown> = {};
    const granted = new Set<string>();
    let held = true;
    for (const [name, requiredScopes] of Object.entries(requirement)) {
      const scheme = plan.schemes.get(name)!;
      const verifier = plan.verifiers[name];
      const found = credentialsFor(req, scheme);
      let verified: Verified | undefined;
      if ('missing' in found) reasons.add(found.missing);
      else if (!verifier) reasons.add(`${name} takes no credentials here`);
      else {
        try {
          verified = await verifier(found.credentials, { request: req, scheme: name, requiredScopes });
          if (!verified) reasons.add(`the ${name} credentials are not valid`);
        } catch (error) {
          thrown ??= error;
        }
      }
      if (!verified) {
        held = false;
        break;
      }
      const scopes = new Set(verified.scopes ?? []);
      const missing = requiredScopes.find((s) => !scopes.has(s));
      if (missing !== undefined) {
        lackingScope ??= missing;
        held = false;
        break;
      }
      callers[name] = verified.caller;
      for (const s of scopes) granted.add(s);
    }
    if (held) return { caller: Object.values(callers)[0], callers, scopes: [...granted], failure: undefined };
  }
  return { caller: undefined, callers: {}, scopes: [], failure: refusal(plan, thrown, lackingScope, [...reasons]) };
}

function refusal(plan: SecurityPlan, thrown: unknown, lackingScope: string | undefined, reasons: string[]): unknown {
  if (thrown !== undefined && !(thrown instanceof HttpProblem)) return thrown;
  if (lackingScope !== undefined && !(thrown instanceof HttpProblem)) {
    return new HttpProblem<KitProblemCode>(403, 'forbidden', `The credentials do not grant the scope ${lackingScope}.`);
  }
  const challenges = new Set<string>();
  for (const requirement of plan.requirements) {
    for (const [name, scopes] of Object.entries(requirement)) {
      const value = challenge(plan.schemes.get(name)!, plan.realm, scopes);
      if (value) challenges.add(value);
    }
  }
  const headers: Record<string, string> = challenges.size > 0 ? { 'WWW-Authenticate': [...challenges].join(', ') } : {};
  if (thrown instanceof HttpProblem) {
    return thrown.headers['WWW-Authenticate'] || thrown.status !== 401
      ? thrown
      : new HttpProblem(
          thrown.status,
          thrown.code,
          thrown.message,
          thrown.details,
          { ...headers, ...thrown.headers },
          { cause: thrown.cause },
        );
  }
  return new HttpProblem<KitProblemCode>(401, 'unauthorized', `Valid credentials are required (${reasons.join('; ')}).`, [], headers);
}
