import FindMyWay from 'find-my-way';
import { resolveRef, type OpenApiDocument } from '../contract/document.js';
import type { Parameter } from '../contract/operations.js';
import type { Dispatch } from '../contract/path-keys.js';

/**
 * A segment of a path as one operation reads it: a parameter's value whole, or matched by
 * patterns that give several (`{name}:verb`, `{lat}-{lng}`, `{maxLat}.{format}`), tried in turn:
 * one that reads each value as its schema types it, then one that takes any.
 */
type Segment = { name: string } | { patterns: RegExp[]; names: string[] };

/**
 * The regular expression (source) a path parameter's value must match where it shares a segment
 * with others, from its schema (an `enum` of strings, a number); undefined for any value.
 */
export type ParameterPattern = (name: string) => string | undefined;

/** One operation under a route of find-my-way: its segments, and what tells it apart from others of its URL. */
interface Candidate<T> {
  value: T;
  segments: Segment[];
  dispatch: Dispatch[];
  /** Literal characters in its segments: the more, the sooner it is tried. */
  literals: number;
}

/** What a request asks of a route: its query and its headers. */
export interface Asked {
  query: URLSearchParams;
  headers: Record<string, string | string[] | undefined>;
}

/** A request routed to an operation: its value, and its path parameters by the names the contract gives them. */
export type Found<T> = { value: T; params: Record<string, string> };
/** A request to a URL the contract has, that names none of its operations there (see Dispatch). */
export type Undispatched = { dispatch: Dispatch[] };

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/** What each path parameter of `parameters` takes, as a ParameterPattern: one of its enum's values, or a number. */
export function parameterPatterns(doc: OpenApiDocument, parameters: readonly Parameter[]): ParameterPattern {
  return (name) => {
    const parameter = parameters.find((p) => p.in === 'path' && p.name === name);
    if (!parameter) return undefined;
    const values = resolveRef<{ enum?: unknown } | undefined>(doc, parameter.schema)?.enum;
    if (Array.isArray(values) && values.length > 0 && values.every((v) => typeof v === 'string' || typeof v === 'number'))
      return `(?:${values.map((v) => escapeRegExp(String(v))).join('|')})`;
    if (parameter.type === 'integer') return '[-+]?\\d+';
    if (parameter.type === 'number') return '[-+]?(?:\\d+\\.?\\d*|\\.\\d+)(?:[eE][-+]?\\d+)?';
    return undefined;
  };
}

/** A segment find-my-way takes as written: no parameter and none of its own syntax but `:`, which it takes doubled. */
const isLiteral = (segment: string) => !/[{}*()]/.test(segment);

/**
 * Routes requests to the operations of a contract by method and path (find-my-way's radix tree),
 * then, among operations that share a route, by what tells them apart: literals beside a
 * parameter in one segment (Google's `/v1/{name}:verb` beside `/v1/{name}`, tried most literal
 * first), and the query parameters and headers their path keys name (see splitPathKey).
 */
export class OperationRouter<T> {
  private readonly router = FindMyWay({ caseSensitive: true, ignoreTrailingSlash: false, maxParamLength: 8192 });
  private readonly routes = new Map<string, Candidate<T>[]>();

  /**
   * Adds an operation at `path` (`/v1/books/{id}`), told apart from others there by `dispatch`;
   * `typed` splits a segment of several parameters by what each takes (`71.44.xml` is `{maxLat}`
   * 71.44 and `{format}` xml where the first is a number), before the first split that matches.
   */
  add(method: string, path: string, dispatch: Dispatch[], value: T, typed: ParameterPattern = () => undefined): void {
    const segments: Segment[] = [];
    let literals = 0;
    const route = path
      .split('/')
      .map((segment) => {
        if (isLiteral(segment)) return segment.replace(/:/g, '::');
        const whole = /^\{([^{}]+)\}$/.exec(segment);
        if (whole) segments.push({ name: whole[1]! });
        else {
          const parts = segment.split(/(\{[^{}]+\})/);
          const names = parts.filter((_, i) => i % 2 === 1).map((part) => part.slice(1, -1));
          literals += parts.filter((_, i) => i % 2 === 0).join('').length;
          const source = (patternOf: (name: string) => string | undefined) =>
            parts.map((part, i) => (i % 2 === 1 ? `(${patternOf(part.slice(1, -1)) ?? '.+?'})` : escapeRegExp(part))).join('');
          const sources = [...new Set([source(typed), source(() => undefined)])];
          segments.push({ patterns: sources.map((s) => new RegExp(`^${s}$`, 's')), names });
        }
        return `:p${segments.length - 1}`;
      })
      .join('/');
    const key = `${method} ${route}`;
    let candidates = this.routes.get(key);
    if (!candidates) {
      candidates = [];
      this.routes.set(key, candidates);
      this.router.on(method as 'GET', route, () => undefined, candidates);
    }
    candidates.push({ value, segments, dispatch, literals: literals + dispatch.length * 1000 });
    candidates.sort((a, b) => b.literals - a.literals);
  }

  /**
   * The operation a request names: its path matched, then the first operation there whose
   * segments match and whose dispatch the request carries. Undispatched when the path matched
   * and no operation's dispatch did; null when nothing is at the path.
   */
  find(method: string, path: string, asked: Asked | null): Found<T> | Undispatched | null {
    const found = this.router.find(method as 'GET', path);
    if (!found) return null;
    const raw = found.params as Record<string, string | undefined>;
    // `/items/` is not `/items/{id}` with an empty id.
    if (Object.values(raw).some((value) => !value)) return null;
    const candidates = found.store as Candidate<T>[];
    let pathMatched = false;
    for (const candidate of candidates) {
      const params = matchSegments(candidate.segments, raw);
      if (!params) continue;
      pathMatched = true;
      if (asked === null || candidate.dispatch.every((d) => carries(asked, d))) return { value: candidate.value, params };
    }
    if (!pathMatched) return null;
    return { dispatch: candidates.flatMap((c) => c.dispatch) };
  }
}

/** The path parameters of a request by the contract's names, or null when a segment's pattern does not match. */
function matchSegments(segments: Segment[], raw: Record<string, string | undefined>): Record<string, string> | null {
  const params: Record<string, string> = {};
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i]!;
    const value = raw[`p${i}`] ?? '';
    if ('name' in segment) {
      params[segment.name] = value;
      continue;
    }
    const match = segment.patterns.map((pattern) => pattern.exec(value)).find((m) => m !== null);
    if (!match) return null;
    segment.names.forEach((name, n) => (params[name] = match[n + 1]!));
  }
  return params;
}

/** Whether a request carries a dispatch's query parameter or header (with its value, where it names one). */
function carries({ query, headers }: Asked, d: Dispatch): boolean {
  if (d.in === 'query') return d.value === null ? query.has(d.name) : query.getAll(d.name).includes(d.value);
  const header = headers[d.name.toLowerCase()];
  const values = header === undefined ? [] : Array.isArray(header) ? header : [header];
  return d.value === null ? values.length > 0 : values.includes(d.value);
}
