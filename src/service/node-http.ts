import { createRequire } from 'node:module';

/**
 * node:http, required rather than imported: an ES import of it has Node read every export for
 * its ES facade, WebSocket's among them, which loads undici (nodejs/node#59686): 100 ms more to
 * start and 13 MiB more resident, for a client the service never uses.
 */
export const nodeHttp = createRequire(import.meta.url)('node:http') as typeof import('node:http');
