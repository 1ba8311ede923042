import { request as httpRequest, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import { parseStrictJson, readableDetails, type ProblemDetail } from 'contract-kit';
import { BODY_LIMITS } from '../../contract/body-limits.js';
import { parameterProblems } from '../../contract/strict-parameters.js';
import { dressHeaders, preferFitting, preferParts, type ResponseHeaders } from './mock-answers.js';
import type { MockContract, MockOperation } from './mock-contract.js';
import { prismViolationsToError, problemToError, type ErrorBody } from './prism-translation.js';

/** The request's query string as the server reads it: a string per name, an array for a repeated one. */
function queryOf(search: string): Record<string, string | string[]> {
  const query: Record<string, string | string[]> = {};
  const params = new URLSearchParams(search);
  for (const name of new Set(params.keys())) {
    const values = params.getAll(name);
    query[name] = values.length === 1 ? values[0]! : values;
  }
  return query;
}

/** The server's 400 Error body, naming each refused field. */
function invalidRequest(details: ProblemDetail[], message = 'The request is invalid; see details.'): ErrorBody {
  return { code: 'invalid_request', message, status: 400, details };
}

/** Whether Prism would take the request as authenticated (any bearer token); otherwise it answers 401 first, as the server does. */
const hasBearer = (headers: IncomingHttpHeaders) => /^Bearer\s+\S/i.test(headers.authorization ?? '');

/**
 * The request listener of the mock's proxy in front of Prism on `prismPort` (see startMockServer):
 * it refuses what the server refuses before validating, asks Prism for the answer, and turns
 * Prism's answer into the server's.
 */
export class MockProxy {
  constructor(
    private readonly contract: MockContract,
    private readonly prismPort: number,
    /** Prism generates bodies from the schemas: no example is picked. */
    private readonly dynamic: boolean,
  ) {}

  /** Handles one request: anything outside the base path is a 404; the rest is read whole, then forwarded. */
  readonly listener = (req: IncomingMessage, res: ServerResponse): void => {
    const url = req.url ?? '/';
    const { basePath } = this.contract;
    if (url !== basePath && !url.startsWith(`${basePath}/`) && !url.startsWith(`${basePath}?`)) {
      req.resume();
      this.sendError(res, {
        code: 'not_found',
        message: `No route ${req.method} ${url.split('?')[0]}; every path is under ${basePath}.`,
        status: 404,
      });
      return;
    }
    // The body is read whole before it is passed on: the server refuses some bodies before
    // validating them, and the mock must see them to refuse them alike.
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => this.forward(req, res, Buffer.concat(chunks), url));
  };

  private sendError(res: ServerResponse, body: ErrorBody, headers: Record<string, string> = {}): void {
    const text = JSON.stringify(body);
    res.writeHead(body.status, {
      ...this.contract.commonHeaders,
      ...headers,
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(text)),
    });
    res.end(text);
  }

  /** The 400 the server answers before validating, or null when it would go on to validate. */
  private refusedBeforeValidation(
    req: IncomingMessage,
    op: MockOperation,
    body: Buffer,
    rawParams: Record<string, string>,
    query: Record<string, string | string[]>,
  ): ErrorBody | null {
    if (op.info.hasRequestBody && body.length > 0 && /^application\/json\s*(;|$)/i.test(req.headers['content-type'] ?? '')) {
      const parsed = parseStrictJson(body, BODY_LIMITS.maxProperties);
      if ('refusal' in parsed) return invalidRequest(parsed.refusal.details, parsed.refusal.message);
    }
    const pathParams: Record<string, string> = {};
    try {
      for (const [name, value] of Object.entries(rawParams)) pathParams[name] = decodeURIComponent(value);
    } catch {
      // As the server's error handler answers a path that does not decode (`/pets/%ZZ`).
      return invalidRequest([{ field: 'path', message: 'is not valid percent-encoding' }]);
    }
    const details = parameterProblems(op.info, query, pathParams);
    return details.length > 0 ? invalidRequest(details) : null;
  }

  /**
   * Answers the server's own refusals of an invalid request, unless Prism answers first (no key:
   * 401) or the client asked for another answer (`Prefer: code=429` is answered as asked); else
   * passes the request on to Prism.
   */
  private forward(req: IncomingMessage, res: ServerResponse, body: Buffer, url: string): void {
    const queryAt = url.indexOf('?');
    const query = queryOf(queryAt === -1 ? '' : url.slice(queryAt + 1));
    const match = this.contract.paths.match(queryAt === -1 ? url : url.slice(0, queryAt));
    // As the service routes: a path the contract does not have is a 404, key or not (Prism would
    // take `/pets/` for `/pets`, and ask for the key).
    if (!match) {
      const path = queryAt === -1 ? url : url.slice(0, queryAt);
      return this.sendError(res, { code: 'not_found', message: `No route ${req.method} ${path}.`, status: 404 });
    }
    const info = match.byMethod.get(req.method ?? 'GET');
    // A method the path does not have is a 405 naming those it has, as the service answers it
    // (OPTIONS, a CORS preflight, is Prism's to answer).
    if (!info && req.method !== 'OPTIONS') {
      const path = queryAt === -1 ? url : url.slice(0, queryAt);
      const refusal = { code: 'method_not_allowed', message: `${path} does not take ${req.method}.`, status: 405 };
      return this.sendError(res, refusal, { Allow: [...match.byMethod.keys()].join(', ') });
    }
    const op = info && this.contract.operations.get(info);
    const preferHeader = [req.headers.prefer ?? []].flat().join(', ') || undefined;
    const asked = preferParts(preferHeader).get('code');
    const validates = op !== undefined && hasBearer(req.headers) && (asked === undefined || asked === '400' || asked.startsWith('2'));
    if (validates && match) {
      const refused = this.refusedBeforeValidation(req, op, body, match.rawParams, query);
      if (refused) return this.sendError(res, refused, op.deprecation ?? {});
    }
    const unknownQuery = validates
      ? Object.keys(query).filter((name) => !op.inputs.parameters.some((p) => p.in === 'query' && p.name === name))
      : [];
    const prefer = this.dynamic ? preferHeader : preferFitting(this.contract, preferHeader, op);
    const upstream = httpRequest(
      {
        host: '127.0.0.1',
        port: this.prismPort,
        method: req.method,
        path: url.slice(this.contract.basePath.length) || '/',
        headers: { ...req.headers, host: `127.0.0.1:${this.prismPort}`, ...(prefer === undefined ? {} : { prefer }) },
      },
      (upRes) => {
        const chunks: Buffer[] = [];
        upRes.on('data', (c: Buffer) => chunks.push(c));
        upRes.on('end', () => this.relay(res, upRes.statusCode ?? 500, { ...upRes.headers }, Buffer.concat(chunks), op, unknownQuery));
      },
    );
    upstream.on('error', (error) => {
      const unavailable = { code: 'service_unavailable', message: `The mock backend is unavailable: ${error.message}`, status: 503 };
      this.sendError(res, unavailable, { 'Retry-After': '1' });
    });
    upstream.end(body);
  }

  /** Sends Prism's answer on as the server would have answered: its headers dressed, its errors as Error bodies. */
  private relay(
    res: ServerResponse,
    status: number,
    headers: ResponseHeaders,
    raw: Buffer,
    op: MockOperation | undefined,
    unknownQuery: string[],
  ): void {
    dressHeaders(this.contract, headers, op, status, raw);
    const contentType = headers['content-type'];
    // Prism's report of what broke the contract, which the server never sends: read, then dropped.
    const violations = headers['sl-violations'];
    delete headers['sl-violations'];
    let translated =
      prismViolationsToError(
        status,
        violations,
        this.contract.parameterNames,
        op && ((findings) => readableDetails(this.contract.doc, op.kit, findings)),
      ) ?? problemToError(status, typeof contentType === 'string' ? contentType : undefined, raw);
    // The server's validator refuses a query parameter the operation does not declare
    // before it checks anything else (in express-openapi-validator's words); Prism ignores it.
    if (unknownQuery.length > 0 && (status < 300 || translated?.code === 'invalid_request')) {
      translated = invalidRequest(unknownQuery.map((name) => ({ field: `query.${name}`, message: `Unknown query parameter '${name}'` })));
    }
    if (translated) {
      const keep: Record<string, string> = {};
      for (const [k, v] of Object.entries(headers)) {
        if (typeof v === 'string' && k !== 'content-type' && k !== 'content-length') keep[k] = v;
      }
      this.sendError(res, translated, keep);
      return;
    }
    delete headers['content-length'];
    delete headers['transfer-encoding'];
    res.writeHead(status, { ...headers, 'content-length': String(raw.length) });
    res.end(raw);
  }
}
