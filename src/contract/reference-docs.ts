import { mkdirSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, constants as zlib, gzip } from 'node:zlib';
import { SPEC_PATH } from './load-spec.js';
import { hasRedocly, runRedocly } from './redocly.js';

/** Where `npm run docs` writes the page, and where the server looks for it. */
export const DOCS_PATH = join(dirname(SPEC_PATH), 'build', 'docs', 'index.html');

/** The page around Redoc: its Content-Security-Policy keeps every request on the machine. */
const PAGE_TEMPLATE = join(dirname(SPEC_PATH), 'src', 'contract', 'reference-page.hbs');

/** Whether this installation can render the docs (Redocly is a development dependency). */
export const canBuildDocs = hasRedocly;

/** The compressed copies written beside the page, by the encoding a client asks for them in. */
export const COMPRESSED_SUFFIX = { br: '.br', gzip: '.gz' } as const;

const brotliAsync = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

/**
 * `body` compressed, on libuv's thread pool (never on the event loop: brotli takes a second or
 * more on the 2.6 MB page). `best` for what is compressed once, ahead of time (quality 11 takes
 * seconds); else brotli's quality 9.
 */
export function compress(body: Buffer, encoding: keyof typeof COMPRESSED_SUFFIX, best = false): Promise<Buffer> {
  const quality = best ? zlib.BROTLI_MAX_QUALITY : 9;
  return encoding === 'br'
    ? brotliAsync(body, { params: { [zlib.BROTLI_PARAM_QUALITY]: quality, [zlib.BROTLI_PARAM_SIZE_HINT]: body.length } })
    : gzipAsync(body, { level: zlib.Z_BEST_COMPRESSION });
}

/**
 * Renders the contract with Redocly into one HTML file with Redoc's scripts inlined, so it
 * works offline, and writes it compressed beside it (`index.html.br`, `index.html.gz`), so that
 * the server sends those as they are. `onOutput` receives Redocly's lines, without its boxed
 * notices about its own releases.
 */
export async function buildDocs(
  output: string = DOCS_PATH,
  onOutput: (line: string, stream: 'out' | 'err') => void = () => {},
): Promise<void> {
  mkdirSync(dirname(output), { recursive: true });
  const run = await runRedocly(
    [
      'build-docs',
      SPEC_PATH,
      '--inlineBundle',
      '--template',
      PAGE_TEMPLATE,
      '--output',
      output,
      '--config',
      join(dirname(SPEC_PATH), 'redocly.yaml'),
    ],
    { onLine: onOutput },
  );
  if (run.code !== 0) throw new Error(`redocly build-docs failed (exit ${run.code}):\n${run.stderr}`);
  const html = await readFile(output);
  await Promise.all(
    (['br', 'gzip'] as const).map(async (encoding) =>
      writeFile(`${output}${COMPRESSED_SUFFIX[encoding]}`, await compress(html, encoding, true)),
    ),
  );
}
