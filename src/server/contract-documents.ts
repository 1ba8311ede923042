import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { Router, type Request, type Response } from 'express';
import { stringify } from 'yaml';
import { buildDocs, canBuildDocs, DOCS_PATH } from '../docs/build-docs.js';
import { SPEC_PATH, type OpenApiDocument } from '../spec/load-spec.js';
import { ServiceUnavailableError } from './errors/service-unavailable-error.js';

interface Document {
  body: Buffer;
  type: string;
  etag: string;
}

const document = (body: Buffer | string, type: string): Document => {
  const buffer = Buffer.isBuffer(body) ? body : Buffer.from(body);
  return { body: buffer, type, etag: `"${createHash('sha256').update(buffer).digest('base64url').slice(0, 27)}"` };
};

/** Sends a document with its ETag and cache headers; 304 when the client has it already. */
function send(req: Request, res: Response, doc: Document): void {
  res.set({ ETag: doc.etag, 'Cache-Control': 'public, max-age=300, must-revalidate', 'Content-Type': doc.type });
  const known = req.get('If-None-Match');
  // Split and trimmed without a regular expression: /\s*,\s*/ is quadratic on a header of tabs.
  if (known && known.split(',').some((tag) => tag.trim() === doc.etag)) {
    res.status(304).end();
    return;
  }
  res.status(200).end(req.method === 'HEAD' ? undefined : doc.body);
}

/**
 * The contract, for people and tools, without a key: `/openapi.yaml`, `/openapi.json`, and the
 * rendered reference at `/docs` (the page `npm run docs` writes; rendered on the first request
 * when it is missing or older than openapi.yaml and Redocly is installed).
 */
export function contractDocuments(spec: OpenApiDocument, specText: string | null, docsPath: string = DOCS_PATH): Router {
  const router = Router({ caseSensitive: true });
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
