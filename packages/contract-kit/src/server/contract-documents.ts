import { hash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { promisify } from 'node:util';
import { brotliCompress, constants as zlib, gzip } from 'node:zlib';
import { Router, type Request, type RequestHandler, type Response } from 'express';
import { COMPRESSED_SUFFIX } from '../cli/compressed-copies.js';
import type { OpenApiDocument } from '../contract/document.js';
import { HttpProblem } from './problems.js';

type Encoding = keyof typeof COMPRESSED_SUFFIX | 'identity';

interface Document {
  type: string;
  /** The body in each encoding. */
  bodies: Record<Encoding, Buffer>;
  /** A strong ETag per encoding (RFC 9110, 8.8.3: the bytes differ, so must the tags). */
  etag(encoding: Encoding): string;
}

const brotliAsync = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

/** `body` compressed on libuv's thread pool (brotli takes a second and more on a docs page), at brotli's quality 9. */
function compress(body: Buffer, encoding: keyof typeof COMPRESSED_SUFFIX): Promise<Buffer> {
  return encoding === 'br'
    ? brotliAsync(body, { params: { [zlib.BROTLI_PARAM_QUALITY]: 9, [zlib.BROTLI_PARAM_SIZE_HINT]: body.length } })
    : gzipAsync(body, { level: zlib.Z_BEST_COMPRESSION });
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

/** The compressed copy `contract-kit docs --compress` wrote beside the page, unless it is missing or older than the page. */
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

/** What {@link contractDocuments} serves. */
export interface ContractDocumentsOptions {
  contract: OpenApiDocument;
  /** The contract's text as written, for /openapi.yaml. @default the contract as JSON, which is YAML too */
  text?: string;
  /** The page `contract-kit docs --compress` wrote, for /docs, with its copies beside it. @default no /docs */
  docsPage?: string;
  /**
   * Renders the page when it is missing or older than `contractPath` (where the docs tools are
   * installed, in development), before /docs is first answered.
   */
  rebuild?: { contractPath: string; build: () => Promise<void> };
  /** What /docs's 503 says to do when the page is not there. @default 'run contract-kit docs' */
  buildHint?: string;
  /** Steps run before each document (a rate limit). */
  before?: RequestHandler[];
}

/**
 * The contract, for people and tools, without credentials: `/openapi.yaml`, `/openapi.json`, the
 * rendered reference at `/docs` (503 while it is not built), and a 204 for a browser's
 * `/favicon.ico`. Each is sent with a strong ETag (304 for a client that has it) and compressed
 * (br or gzip) to clients that take it: the page as `contract-kit docs --compress` compressed it
 * beside itself, the contract once, off the event loop.
 */
export function contractDocuments(options: ContractDocumentsOptions): Router {
  const { contract, docsPage } = options;
  const router = Router({ caseSensitive: true });
  if (options.before?.length) router.use(['/openapi.yaml', '/openapi.json', '/docs', '/favicon.ico'], options.before);
  // Each compressed on its first request.
  let yaml: Promise<Document> | null = null;
  let json: Promise<Document> | null = null;
  let docs: Promise<Document> | null = null;
  const loadDocs = async (page: string) => {
    const { rebuild } = options;
    if (rebuild) {
      const built = await stat(page).catch(() => null);
      if (built === null || built.mtimeMs < (await stat(rebuild.contractPath)).mtimeMs) await rebuild.build();
    }
    const pageTime = (await stat(page)).mtimeMs;
    const [html, br, gzip] = await Promise.all([readFile(page), besidePage(page, pageTime, 'br'), besidePage(page, pageTime, 'gzip')]);
    return document(html, 'text/html; charset=utf-8', { br, gzip });
  };

  router.get('/openapi.yaml', async (req, res) => {
    yaml ??= document(options.text ?? JSON.stringify(contract, null, 2), 'application/yaml; charset=utf-8');
    send(req, res, await yaml);
  });
  router.get('/openapi.json', async (req, res) => {
    json ??= document(JSON.stringify(contract, null, 2), 'application/json; charset=utf-8');
    send(req, res, await json);
  });
  if (docsPage !== undefined)
    router.get(['/docs', '/docs/'], async (req, res) => {
      docs ??= loadDocs(docsPage);
      try {
        send(req, res, await docs);
      } catch (error) {
        docs = null;
        const hint = options.buildHint ?? 'run contract-kit docs';
        throw new HttpProblem(
          503,
          'service_unavailable',
          `The documentation has not been built; ${hint}.`,
          [],
          { 'Retry-After': '60' },
          { cause: error },
        );
      }
    });
  // What a browser asks of any site it shows: there is no icon (the docs page declares none).
  router.get('/favicon.ico', (_req, res) => {
    res.set('Cache-Control', 'public, max-age=86400').status(204).end();
  });
  return router;
}
