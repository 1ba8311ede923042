import type { IncomingMessage } from 'node:http';
import { HttpProblem, type KitProblemCode } from './problems.js';

/**
 * The 400 RFC 9112 has a server answer to an HTTP/1.1 request without a Host header, or to any
 * request with more than one; undefined for any other request (an HTTP/1.0 request may have
 * none). Node keeps the first of several Host lines, and answers a missing one itself with a
 * bare 400 unless its server is created with `requireHostHeader: false`. The answer closes the
 * connection: two Hosts are how one request is read as two by servers that disagree.
 * @see https://www.rfc-editor.org/rfc/rfc9112#section-3.2
 */
export function hostRefusal(req: IncomingMessage): HttpProblem | undefined {
  const raw = req.rawHeaders;
  let hosts = 0;
  for (let i = 0; i < raw.length; i += 2) if (raw[i]!.length === 4 && raw[i]!.toLowerCase() === 'host') hosts++;
  if (hosts === 1 || (hosts === 0 && req.httpVersion === '1.0')) return undefined;
  const message = hosts === 0 ? 'is required' : 'is given more than once';
  return new HttpProblem<KitProblemCode>(
    400,
    'invalid_request',
    'An HTTP/1.1 request must have exactly one Host header.',
    [{ field: 'header.host', message }],
    { Connection: 'close' },
  );
}
