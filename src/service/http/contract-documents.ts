import { createHash } from 'node:crypto';
import { brotliCompressSync, constants as zlib, gzipSync } from 'node:zlib';
import { readFile, stat } from 'node:fs/promises';
import { Router, type Request, type RequestHandler, type Response } from 'express';
import { stringify } from 'yaml';
import { buildDocs, canBuildDocs, DOCS_PATH } from '../../contract/reference-docs.js';
import { SPEC_PATH, type OpenApiDocument } from '../../contract/load-spec.js';
import { ServiceUnavailableError } from './errors/service-unavailable-error.js';

type Encoding = 'br' | 'gzip' | 'identity';

interface Document {
  type: string;
  /** The body in each encoding, compressed once, when first asked for. */
  body(encoding: Encoding): Buffer;
  /** A strong ETag per encoding (RFC 9110, 8.8.3: the bytes differ, so must the tags). */
  etag(encoding: Encoding): string;
}

const document = (content: Buffer | string, type: string): Document => {
  const identity = Buffer.isBuffer(content) ? content : Buffer.from(content);
  const hash = createHash('sha256').update(identity).digest('base64url').slice(0, 27);
  const compressed = new Map<Encoding, Buffer>([['identity', identity]]);
  return {
    type,
    body(encoding) {
      let body = compressed.get(encoding);
      if (!body) {
        body =
          encoding === 'br'
            ? brotliCompressSync(identity, { params: { [zlib.BROTLI_PARAM_QUALITY]: 9 } })
            : gzipSync(identity, { level: 9 });
        compressed.set(encoding, body);
      }
      return body;
    },
    etag: (encoding) => (encoding === 'identity' ? `"${hash}"` : `"${hash}-${encoding}"`),
  };
};

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
  const body = doc.body(encoding);
  res.set('Content-Length', String(body.length));
  res.status(200).end(req.method === 'HEAD' ? undefined : body);
}

/**
 * The contract, for people and tools, without a key: `/openapi.yaml`, `/openapi.json`, and the
 * rendered reference at `/docs` (the page `npm run docs` writes; rendered on the first request
 * when it is missing or older than openapi.yaml and Redocly is installed). Served compressed
 * (br or gzip, each compressed once) to clients that take it, and behind `limit` (per address).
 */
export function contractDocuments(
  spec: OpenApiDocument,
  specText: string | null,
  limit: RequestHandler,
  docsPath: string = DOCS_PATH,
): Router {
  const router = Router({ caseSensitive: true });
  router.use(['/openapi.yaml', '/openapi.json', '/docs'], limit);
  const yaml = document(specText ?? stringify(spec), 'application/yaml; charset=utf-8');
  const json = document(JSON.stringify(spec, null, 2), 'application/json; charset=utf-8');
  let docs: Promise<Document> | null = null;
  // A page missing, or older than the contract, is rendered again when Redocly is installed.
  const loadDocs = async () => {
    const built = await stat(docsPath).catch(() => null);
    const stale = built !== null && built.mtimeMs < (await stat(SPEC_PATH)).mtimeMs;
    if ((built === null || stale) && canBuildDocs()) await buildDocs(docsPath);
    return readFile(docsPath);
  };

  router.get('/openapi.yaml', (req, res) => send(req, res, yaml));
  router.get('/openapi.json', (req, res) => send(req, res, json));
  router.get(['/docs', '/docs/'], async (req, res) => {
    docs ??= loadDocs().then((html) => document(html, 'text/html; charset=utf-8'));
    try {
      send(req, res, await docs);
    } catch (error) {
      docs = null;
      throw new ServiceUnavailableError('The documentation has not been built; run npm run docs.', 60, { cause: error });
    }
  });
  return router;
}
