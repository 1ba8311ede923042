/** `npm run mock`: Prism serves the contract, answering like the real server. */
import { parseCommandLine, portOption } from '../src/shared/command-line.js';
import { startMockServer } from '../src/toolkit/mock/mock-server.js';

const HELP = `Usage: npm run mock [-- --dynamic] [--port N] [--host ADDR] [--verbose]

Serves openapi.yaml with Prism, under the same /v1 base path as the real server. Responses are
the contract's named examples; the Authorization header must be present (any bearer token is
accepted). Pick a response with the Prefer header; without an example named, the mock sends the
first example that fits the operation (a 400 of GET /pets names a query parameter), with the
headers that example goes with (a 429 says X-RateLimit-Remaining: 0 and its own Retry-After):

  curl -H 'Authorization: Bearer any' -H 'Prefer: code=429' http://127.0.0.1:4010/v1/pets
  curl -H 'Authorization: Bearer any' -H 'Prefer: example=KeyTemporarilyBannedExample, code=429' ...

Options:
  --dynamic      Generate response bodies from the schemas instead of the examples.
  --port N       Port to listen on (default 4010).
  --host ADDR    Address to listen on (default 127.0.0.1).
  --verbose      Print Prism's own log of each request too (its lines are about Prism's answer,
                 which the mock then turns into the server's: its 422 becomes a 400).
  -h, --help     Show this help.

It prints one line per request: what the client got (GET /v1/pets → 200).
`;

async function main(): Promise<void> {
  const { values } = parseCommandLine(HELP, {
    dynamic: { type: 'boolean', short: 'd', default: false },
    port: { type: 'string', default: '4010' },
    host: { type: 'string', default: '127.0.0.1' },
    verbose: { type: 'boolean', default: false },
  });
  const port = portOption(HELP, values.port);
  const mock = await startMockServer({
    port,
    host: values.host,
    dynamic: values.dynamic,
    log: values.verbose ? (line) => process.stdout.write(`${line}\n`) : null,
    requestLog: (line) => process.stdout.write(`${line}\n`),
  });
  const stop = () => {
    mock.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  // Before it says where it is: whoever reads that may stop it at once. SIGHUP too: the terminal
  // it runs in may close. Prism goes with it, whatever stops it.
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.once(signal, stop);
  const tryIt = mock.examplePath === null ? '' : `${mock.url}${mock.examplePath}`;
  process.stdout.write(
    `Mock ${mock.title} at ${mock.url}${values.dynamic ? ' (bodies generated from the schemas)' : ''}\n` +
      (tryIt
        ? `  curl -H 'Authorization: Bearer any' ${tryIt}\n` + `  curl -H 'Authorization: Bearer any' -H 'Prefer: code=429' ${tryIt}\n`
        : '') +
      'Press Ctrl+C to stop.\n',
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`mock failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
