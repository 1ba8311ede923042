import type { IncomingMessage } from 'node:http';
import type { Transform } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import getRawBody from 'raw-body';

/** The content codings a body may come in, and the stream that undoes each (RFC 9110, section 8.4.1). */
const DECODERS: Record<string, () => Transform> = {
  gzip: createGunzip,
  'x-gzip': createGunzip,
  deflate: createInflate,
  br: createBrotliDecompress,
};

/**
 * What a coding may add to a body on the wire: gzip's header and trailer, and the headers of
 * deflate's blocks, are a few bytes per 64 KiB. A coded body larger on the wire than its limit
 * plus this is refused as it arrives, even while it inflates to nothing (empty blocks, a gzip
 * header's endless name field).
 */
const CODING_OVERHEAD_BYTES = 1024;

/** Why a body could not be read. */
export type BodyReadFailure =
  /** Larger than the limit, on the wire or once inflated. */
  | { kind: 'too_large' }
  /** Coded with a content coding this reader does not undo. */
  | { kind: 'unsupported_coding'; coding: string }
  /** Not valid in its coding (a broken gzip stream). */
  | { kind: 'undecodable'; coding: string; cause: unknown }
  /** The client went away before sending all of it. */
  | { kind: 'aborted'; cause: unknown };

/** A body that could not be read, and why. */
export class BodyReadError extends Error {
  constructor(readonly failure: BodyReadFailure) {
    super(`The request body could not be read: ${failure.kind}`, 'cause' in failure ? { cause: failure.cause } : undefined);
  }
}

/**
 * Reads a request's body whole, undoing its Content-Encoding (gzip, deflate, br), and gives up
 * as soon as it passes `limitBytes` (on the wire, or once inflated): what is left is never
 * read, so the caller answers at once (413) and the connection is closed after its answer
 * (see closeUnreadBody). express.json stops parsing at its limit but reads the rest of the body
 * to its end before it answers, however long that is.
 * @throws BodyReadError
 */
export async function readBody(req: IncomingMessage, limitBytes: number): Promise<Buffer> {
  const coding = (req.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  if (coding === 'identity') return read(req, limitBytes, coding);
  const decoder = DECODERS[coding]?.();
  if (!decoder) throw new BodyReadError({ kind: 'unsupported_coding', coding });
  let onWire = 0;
  const countOnWire = (chunk: Buffer) => {
    onWire += chunk.length;
    if (onWire <= limitBytes + CODING_OVERHEAD_BYTES) return;
    req.unpipe(decoder);
    req.pause();
    decoder.destroy(new BodyReadError({ kind: 'too_large' }));
  };
  req.on('data', countOnWire);
  req.pipe(decoder);
  try {
    return await read(decoder, limitBytes, coding);
  } finally {
    req.off('data', countOnWire);
    req.unpipe(decoder);
    decoder.destroy();
  }
}

/**
 * A request's body as it arrives, its Content-Encoding undone (gzip, deflate, br), for a reader
 * that takes it piece by piece: it is no larger on the wire than `limitBytes` plus what a coding adds.
 * @throws BodyReadError for a coding it does not undo
 */
export function decodedBody(req: IncomingMessage, limitBytes: number): NodeJS.ReadableStream {
  const coding = (req.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  if (coding === 'identity') return req;
  const decoder = DECODERS[coding]?.();
  if (!decoder) throw new BodyReadError({ kind: 'unsupported_coding', coding });
  let onWire = 0;
  req.on('data', (chunk: Buffer) => {
    onWire += chunk.length;
    if (onWire <= limitBytes + CODING_OVERHEAD_BYTES) return;
    req.unpipe(decoder);
    req.pause();
    decoder.destroy(new BodyReadError({ kind: 'too_large' }));
  });
  // The client going away ends the decoded body too (pipe does not pass errors on).
  req.on('error', (error) => decoder.destroy(new BodyReadError({ kind: 'aborted', cause: error })));
  req.pipe(decoder);
  return decoder;
}

async function read(stream: NodeJS.ReadableStream, limitBytes: number, coding: string): Promise<Buffer> {
  try {
    return await getRawBody(stream, { limit: limitBytes });
  } catch (error) {
    if (error instanceof BodyReadError) throw error;
    const type = (error as { type?: unknown }).type;
    if (type === 'entity.too.large') throw new BodyReadError({ kind: 'too_large' });
    if (type === 'request.aborted') throw new BodyReadError({ kind: 'aborted', cause: error });
    throw new BodyReadError({ kind: 'undecodable', coding, cause: error });
  }
}
