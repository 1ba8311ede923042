import { hash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { Router, type Request, type RequestHandler, type Response } from 'express';
import { buildDocs, canBuildDocs, compress, COMPRESSED_SUFFIX, DOCS_PATH } from '../../contract/reference-docs.js';
import { SPEC_PATH, type OpenApiDocument } from '../../contract/load-spec.js';
import { ServiceUnavailableError } from './errors/service-unavailable-error.js';

type Encoding = keyof typeof COMPRESSED_SUFFIX | 'identity';

interface Document {
  type: string;
  /** The body in each encoding. */
  bodies: Record<Encoding, Buffer>;
  /** A strong ETag per encoding (RFC 9110, 8.8.3: the bytes differ, so must the tags). */
  etag(encoding: Encoding): string;
}

/** A document in every encoding: those given (written when the docs were built), the others compressed off the event loop. */
async function document(content: Buffer | string, type: string, given: Partial<Record<Encoding, Buffer>> = {}): Promise<Document> {
  const identity = Buffer.isBuffer(content) ? content : Buffer.from(content);
  const digest = hash('sha256', identity, 'base64url').slice(0, 27);
  const [br, gzip] = await Promise.all([given.br ?? compress(identity, 'br'), given.gzip ?? compress(identity, 'gzip')]);
  return {
    type,
    bodies: { identity, br, gzip },
    etag: (encoding) => (encoding === 'identity' ? `"${digest}"` : `"${digest}-${encoding}"`),
  };
}

/** The compressed copy `npm run docs` wrote beside the page, unless it is missing or older than the page. */
async function besidePage(page: string, pageTime: number, encoding: keyof typeof COMPRESSED_SUFFIX): Promise<Buffer | undefined> {
  const path = `${page}${COMPRESSED_SUFFIX[encoding]}`;
  const written = await stat(path).catch(() => null);
  return written !== null && written.mtimeMs >= pageTime ? readFile(path) : undefined;
}

/** The encoding to answer with: br, then gzip, when Accept-Encoding takes it (q above 0). */
function negotiate(acceptEncoding: string | undefined): Encoding {
  if (!acceptEncoding) return 'identity';
  const accepted = new Map<string, number>();
  for (const part of acceptEncoding.slice(0, 1024).split(',')) {
    const [name = '', ...params] = part.split(';').map((p) => p.trim().toLowerCase());
    const q = params.find((p) => p.startsWith('q='));
    accepted.set(name, q === undefined ? 1 : Number(q.slice(2)) || 0);
  }
  const takes = (name: string) => (accepted.get(name) ?? accepted.get('*') ?? 0) > 0;
  if (takes('br')) return 'br';
  if (takes('gzip')) return 'gzip';
  return 'identity';
}

/** Sends a document with its ETag and cache headers, compressed when the client takes it; 304 when it has it already. */
function send(req: Request, res: Response, doc: Document): void {
  const encoding = negotiate(req.get('Accept-Encoding'));
  const etag = doc.etag(encoding);
  res.set({ ETag: etag, 'Cache-Control': 'public, max-age=300, must-revalidate', 'Content-Type': doc.type });
  // Added to what is there (CORS varies by Origin), never in its place.
  res.vary('Accept-Encoding');
  if (encoding !== 'identity') res.set('Content-Encoding', encoding);
  const known = req.get('If-None-Match');
  // Split and trimmed without a regular expression: /\s*,\s*/ is quadratic on a header of tabs.
  // Weak comparison (RFC 9110, 13.1.2): a proxy may have weakened the tag.
  if (known && known.split(',').some((tag) => tag.trim() === '*' || tag.trim().replace(/^W\//, '') === etag)) {
    res.status(304).end();
    return;
  }
  const body = doc.bodies[encoding];
  res.set('Content-Length', String(body.length));
  res.status(200).end(req.method === 'HEAD' ? undefined : body);
}

/**
 * The contract, for people and tools, without a key: `/openapi.yaml`, `/openapi.json`, the
 * rendered reference at `/docs`, and a 204 for a browser's `/favicon.ico` (the page `npm run docs` writes; rendered on the first request
 * when it is missing or older than openapi.yaml and Redocly is installed). Served compressed
 * (br or gzip) to clients that take it, and behind `limit` (per address): the page as `npm run
 * docs` compressed it beside itself, the contract compressed once, off the event loop.
 */
export function contractDocuments(
  spec: OpenApiDocument,
  specText: string | null,
  limit: RequestHandler,
  docsPath: string = DOCS_PATH,
): Router {
  const router = Router({ caseSensitive: true });
  router.use(['/openapi.yaml', '/openapi.json', '/docs', '/favicon.ico'], limit);
  // Each compressed on its first request.
  let yaml: Promise<Document> | null = null;
  let json: Promise<Document> | null = null;
  let docs: Promise<Document> | null = null;
  // A page missing, or older than the contract, is rendered again when Redocly is installed.
  const loadDocs = async () => {
    const built = await stat(docsPath).catch(() => null);
    const stale = built !== null && built.mtimeMs < (await stat(SPEC_PATH)).mtimeMs;
    if ((built === null || stale) && canBuildDocs()) await buildDocs(docsPath);
    const pageTime = (await stat(docsPath)).mtimeMs;
    const [html, br, gzip] = await Promise.all([
      readFile(docsPath),
      besidePage(docsPath, pageTime, 'br'),
      besidePage(docsPath, pageTime, 'gzip'),
    ]);
    return document(html, 'text/html; charset=utf-8', { br, gzip });
  };

  router.get('/openapi.yaml', async (req, res) => {
    // A contract given without its text is sent as JSON, which is YAML too.
    yaml ??= document(specText ?? JSON.stringify(spec, null, 2), 'application/yaml; charset=utf-8');
    send(req, res, await yaml);
  });
  router.get('/openapi.json', async (req, res) => {
    json ??= document(JSON.stringify(spec, null, 2), 'application/json; charset=utf-8');
    send(req, res, await json);
  });
  router.get(['/docs', '/docs/'], async (req, res) => {
    docs ??= loadDocs();
    try {
      send(req, res, await docs);
    } catch (error) {
      docs = null;
      throw new ServiceUnavailableError('The documentation has not been built; run npm run docs.', 60, { cause: error });
    }
  });
  // What a browser asks of any site it shows: there is no icon (the docs page declares none).
  router.get('/favicon.ico', (_req, res) => {
    res.set('Cache-Control', 'public, max-age=86400').status(204).end();
  });
  return router;
}
