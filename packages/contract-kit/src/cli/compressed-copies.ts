import { readFile, writeFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { brotliCompress, constants as zlib, gzip } from 'node:zlib';

/** The copies written beside a file, by the Content-Encoding a server sends each with. */
export const COMPRESSED_SUFFIX = { br: '.br', gzip: '.gz' } as const;

/**
 * Writes `path` compressed beside itself, `FILE.br` (brotli's best quality) and `FILE.gz` (gzip's
 * best level), for a server to send as they are: compressed once, ahead of time, on libuv's thread
 * pool. Returns the files written.
 */
export async function writeCompressedCopies(path: string): Promise<string[]> {
  const body = await readFile(path);
  const br = promisify(brotliCompress)(body, {
    params: { [zlib.BROTLI_PARAM_QUALITY]: zlib.BROTLI_MAX_QUALITY, [zlib.BROTLI_PARAM_SIZE_HINT]: body.length },
  });
  const gz = promisify(gzip)(body, { level: zlib.Z_BEST_COMPRESSION });
  const written = [`${path}${COMPRESSED_SUFFIX.br}`, `${path}${COMPRESSED_SUFFIX.gzip}`];
  await Promise.all([writeFile(written[0]!, await br), writeFile(written[1]!, await gz)]);
  return written;
}
